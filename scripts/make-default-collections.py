#!/usr/bin/env python3
"""Writes the default input's two collections (invented, deterministic data for the demo tree):
input/collections/data/listings.csv (Boston-area property listings, dates in the three formats the real-estate
design document's API sends) and input/collections/data/schools.jsonl (schools near those listings).
Usage: scripts/make-default-collections.py [INPUT_DIR=input]"""
import json
import os
import random
import sys

out = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "input", "collections", "data")
os.makedirs(out, exist_ok=True)
rng = random.Random(2026)

cities = [("Boston", 42.3601, -71.0589), ("Cambridge", 42.3736, -71.1097), ("Somerville", 42.3876, -71.0995),
          ("Brookline", 42.3318, -71.1212), ("Newton", 42.3370, -71.2092), ("Quincy", 42.2529, -71.0023),
          ("Medford", 42.4184, -71.1062), ("Arlington", 42.4154, -71.1565)]
streets = ["Beacon St", "Commonwealth Ave", "Harvard St", "Elm St", "Washington St", "Highland Ave", "Summer St",
           "Pleasant St", "Chestnut St", "Walnut St", "Park Ave", "Center St"]
types = ["Condo", "Single Family", "Multi Family", "Townhouse"]
features = ["Parking", "Laundry in unit", "Central air", "Hardwood floors", "Deck", "Garden", "Elevator", "Fireplace"]

with open(os.path.join(out, "listings.csv"), "w", newline="") as f:
    f.write("ListingKey,ListingId,ListPrice,Beds,Baths,Sqft,PropertyType,StreetAddress,City,Latitude,Longitude,"
            "MainPhotoUrl,DaysOnMarket,ListedAt,Features\n")
    for i in range(1, 121):
        city, lat, lon = cities[i % len(cities)]
        ptype = types[rng.randrange(len(types))]
        beds = rng.randint(1, 5)
        baths = rng.choice(["1", "1.5", "2", "2.5", "3", "3.5"])
        sqft = "" if i % 9 == 0 else str(rng.randint(550, 3800))
        # Prices with cents, some ending in 0 (written back without the trailing zero), some whole.
        price = rng.randint(289, 2450) * 1000 + rng.choice([0, 0, 0, 10, 50, 99])
        cents = rng.choice(["", ".00", ".10", ".50", ".95"])
        days = rng.randint(0, 160)
        day = 1 + (i * 7) % 28
        month = 1 + (i * 5) % 11
        hh, mm = rng.randint(8, 19), rng.choice([0, 15, 30, 45])
        if i % 3 == 0:
            listed = f"2026-{month:02d}-{day:02d}T{hh:02d}:{mm:02d}:00.000Z"          # ISO-8601, fractional seconds
        elif i % 3 == 1:
            listed = f"2026-{month:02d}-{day:02d}T{hh:02d}:{mm:02d}:00-05:00"         # ISO-8601 with an offset
        else:
            listed = f"2026-{month:02d}-{day:02d} {hh:02d}:{mm:02d}:00"               # MySQL, America/New_York
        feats = "|".join(sorted(rng.sample(features, rng.randint(0, 3))))
        f.write(f"BOS{73000 + i * 37},{72800000 + i * 113},{price}{cents},{beds},{baths},{sqft},{ptype},"
                f"\"{rng.randint(3, 480)} {streets[rng.randrange(len(streets))]}\",{city},"
                f"{lat + rng.uniform(-0.02, 0.02):.6f},{lon + rng.uniform(-0.02, 0.02):.6f},"
                f"https://photos.example.com/listings/BOS{73000 + i * 37}/main.jpg,{days},{listed},{feats}\n")

grades = ["A+", "A", "A-", "B+", "B", "B-", "C+", "C"]
kinds = [("Elementary", "Elementary School"), ("Middle", "Middle School"), ("High", "High School")]
names = ["Lincoln", "Adams", "Hawthorne", "Emerson", "Thoreau", "Alcott", "Franklin", "Winthrop", "Revere", "Bradford",
         "Longfellow", "Dickinson", "Whittier", "Channing", "Peabody"]
with open(os.path.join(out, "schools.jsonl"), "w") as f:
    for i in range(1, 61):
        city, lat, lon = cities[i % len(cities)]
        stype, suffix = kinds[i % 3]
        rated = i % 7 != 0
        rec = {
            "id": 2500 + i,
            "name": f"{names[i % len(names)]} {suffix}" + ("" if i < 15 else f" ({city})"),
            "school_type": stype,
            "letter_grade": grades[rng.randrange(len(grades))] if rated else None,
            "composite_score": round(rng.uniform(52, 98), 1) if rated else None,
            "distance": round(rng.uniform(0.2, 4.8), 2),
            "district_name": f"{city} Public Schools" if i % 11 else None,
            "city": city,
            "latitude": round(lat + rng.uniform(-0.03, 0.03), 6),
            "longitude": round(lon + rng.uniform(-0.03, 0.03), 6),
        }
        f.write(json.dumps(rec) + "\n")
print(f"wrote {out}/listings.csv (120 listings) and {out}/schools.jsonl (60 schools)")
