#!/usr/bin/env python3
"""Writes the default demo catalog in input/catalog/ (products.jsonl, categories.json).

The catalog is invented for this project (no third-party data): a few hundred hardware-store
products built from hand-written product lines, with deterministic prices and ratings, and a
few deliberate anomalies (no brand, no price, no category, brand case variants, a category
missing from the tree) so the default build shows every policy at work.
Run from the repository root: python3 scripts/make-default-catalog.py
"""
import json, random

rng = random.Random(20261122)

tree = [
    ("tools", "Tools", None), ("tools/power-drills", "Power Drills", "tools"), ("tools/saws", "Saws", "tools"),
    ("tools/sanders", "Sanders", "tools"), ("tools/hand-tools", "Hand Tools", "tools"),
    ("tools/hand-tools/screwdrivers", "Screwdrivers", "tools/hand-tools"), ("tools/hand-tools/wrenches", "Wrenches", "tools/hand-tools"),
    ("tools/batteries", "Batteries & Chargers", "tools"),
    ("outdoor", "Outdoor", None), ("outdoor/mowers", "Lawn Mowers", "outdoor"), ("outdoor/trimmers", "String Trimmers", "outdoor"),
    ("outdoor/grills", "Grills", "outdoor"), ("outdoor/garden-hoses", "Garden Hoses", "outdoor"),
    ("paint", "Paint", None), ("paint/interior", "Interior Paint", "paint"), ("paint/exterior", "Exterior Paint", "paint"),
    ("paint/supplies", "Paint Supplies", "paint"),
    ("lighting", "Lighting", None), ("lighting/ceiling", "Ceiling Lights", "lighting"), ("lighting/bulbs", "Light Bulbs", "lighting"),
    ("lighting/outdoor", "Outdoor Lighting", "lighting"),
    ("storage", "Storage", None), ("storage/shelving", "Shelving", "storage"), ("storage/tool-chests", "Tool Chests", "storage"),
    ("plumbing", "Plumbing", None), ("plumbing/faucets", "Faucets", "plumbing"), ("plumbing/water-heaters", "Water Heaters", "plumbing"),
]

lines = [
    # category, brands, name templates, price range, description
    ("tools/power-drills", ["Voltara", "Ironclad", "BRAXTON"], ["{v}V Cordless {kind} Drill Kit", "{v}V Brushless {kind} Drill/Driver"],
     (59, 299), "Compact {v}-volt drill with a 1/2 in. keyless chuck, LED work light and two-speed gearbox."),
    ("tools/saws", ["Ironclad", "Voltara", "Redline"], ["{v}V Cordless Circular Saw 6-1/2 in.", "15 Amp Corded Miter Saw 10 in.", "{v}V Reciprocating Saw"],
     (79, 399), "Cuts 2x lumber in one pass; electric brake stops the blade in seconds."),
    ("tools/sanders", ["Voltara", "Finely"], ["5 in. Random Orbit Sander", "1/4 Sheet Palm Sander", "{v}V Detail Sander"],
     (39, 149), "Hook-and-loop pad and dust bag keep the work surface clean."),
    ("tools/hand-tools/screwdrivers", ["Ironclad", "Gripwell"], ["{n}-Piece Precision Screwdriver Set", "6-in-1 Ratcheting Screwdriver"],
     (9, 49), "Magnetic tips and cushioned grips for all-day comfort."),
    ("tools/hand-tools/wrenches", ["Gripwell", "Ironclad"], ["{n}-Piece SAE/Metric Combination Wrench Set", "10 in. Adjustable Wrench"],
     (14, 129), "Chrome vanadium steel with a polished finish."),
    ("tools/batteries", ["Voltara", "BRAXTON", "Braxton"], ["{v}V 4.0Ah Lithium-Ion Battery", "{v}V Rapid Charger", "{v}V Battery Starter Kit"],
     (49, 219), "Fuel gauge shows remaining charge; works with every tool of the platform."),
    ("outdoor/mowers", ["Greenfield", "Voltara"], ["21 in. {v}V Cordless Walk-Behind Mower", "160cc Gas Self-Propelled Mower"],
     (249, 699), "Three-in-one mulch, bag or side discharge with single-lever height adjustment."),
    ("outdoor/trimmers", ["Greenfield", "Voltara"], ["{v}V String Trimmer 13 in.", "Gas 2-Cycle Curved Shaft Trimmer"],
     (89, 229), "Bump-feed head and adjustable handle."),
    ("outdoor/grills", ["Emberline", "Smokehouse"], ["3-Burner Propane Gas Grill", "22 in. Charcoal Kettle Grill", "Pellet Smoker {n}0 sq. in."],
     (129, 899), "Porcelain-coated grates and a built-in thermometer."),
    ("outdoor/garden-hoses", ["Aquaflow"], ["5/8 in. x {n}0 ft. Heavy-Duty Garden Hose", "Expandable Hose 50 ft."],
     (19, 69), "Kink-resistant with crush-proof brass couplings."),
    ("paint/interior", ["Colorcraft", "Truecoat"], ["1 gal. Eggshell Interior Paint and Primer", "5 gal. Flat Ceiling Paint", "1 qt. Satin Interior Paint"],
     (18, 189), "One-coat coverage, low odor, scrubbable finish."),
    ("paint/exterior", ["Truecoat", "Colorcraft"], ["1 gal. Satin Exterior Paint", "5 gal. Solid Color Deck Stain"],
     (34, 249), "Mildew-resistant finish rated for all climates."),
    ("paint/supplies", ["Brushworks"], ["9 in. Roller Frame and Tray Kit", "{n}-Pack Angled Sash Brushes", "Painter's Tape 1.88 in. x 60 yd."],
     (5, 39), "Everything needed for clean lines and smooth walls."),
    ("lighting/ceiling", ["Lumenhaus", "Brightway"], ["52 in. LED Ceiling Fan with Light", "13 in. Flush Mount LED Light", "3-Light Vanity Fixture"],
     (29, 249), "Integrated LED, dimmable, 3000K warm white."),
    ("lighting/bulbs", ["Brightway", "Lumenhaus"], ["60-Watt Equivalent A19 LED Bulbs ({n}-Pack)", "BR30 Dimmable Flood Light Bulbs ({n}-Pack)"],
     (6, 39), "Lasts up to 15,000 hours; instant on."),
    ("lighting/outdoor", ["Lumenhaus", "Brightway"], ["Motion-Activated LED Security Light", "Solar Path Lights ({n}-Pack)"],
     (19, 129), "Weather-resistant housing for year-round use."),
    ("storage/shelving", ["Stackwell", "Garagepro"], ["5-Tier Steel Garage Shelving Unit", "4-Tier Plastic Shelf 36 in. W"],
     (49, 229), "Boltless assembly; each shelf holds 350 lb."),
    ("storage/tool-chests", ["Garagepro", "Ironclad"], ["41 in. 9-Drawer Rolling Tool Cabinet", "26 in. 5-Drawer Tool Chest"],
     (149, 799), "Ball-bearing slides and a keyed lock."),
    ("plumbing/faucets", ["Aquaflow", "Rivera"], ["Single-Handle Pull-Down Kitchen Faucet", "4 in. Centerset Bathroom Faucet"],
     (49, 299), "Spot-resistant finish with ceramic disc valves."),
    ("plumbing/water-heaters", ["Rivera", "Thermacore"], ["40 gal. Electric Water Heater", "50 gal. Gas Tank Water Heater", "Tankless Electric Water Heater"],
     (399, 1299), "Six-year warranty; self-cleaning dip tube."),
]

kinds = ["Compact", "Hammer", "Heavy-Duty", "Right-Angle"]
products = []
pid = 300100
for category, brands, templates, (lo, hi), desc in lines:
    for i in range(14):
        pid += rng.randint(7, 97)
        v = rng.choice([12, 18, 20, 40])
        n = rng.choice([2, 4, 6, 8, 10, 12])
        name = rng.choice(templates).format(v=v, n=n, kind=rng.choice(kinds))
        brand = brands[i % len(brands)]
        price = round(rng.uniform(lo, hi) * 100) / 100
        price = float(int(price)) + 0.97 if i % 3 == 0 else price
        count = rng.choice([0, 3, 12, 48, 150, 420, 1280])
        avg = round(rng.uniform(3.1, 4.95), 4) if count else None
        p = {
            "id": str(pid), "name": f"{name}", "description": desc.format(v=v, n=n),
            "brand": brand, "price": round(price, 2), "currency": "USD", "inStock": rng.random() > 0.12,
            "imageUrl": f"https://images.example.com/products/{pid}/main_400.jpg",
            "rating": {"average": avg, "count": count}, "category": category,
        }
        products.append(p)

# Deliberate anomalies, one policy each.
products[5]["brand"] = None                      # no brand → "Unbranded"
products[40]["brand"] = None
products[17]["price"] = None                     # no price → not a listing, reported
products[99]["price"] = None
products[23]["category"] = None                  # no category → "uncategorized"
products[150]["category"] = None
products[61]["category"] = "tools/power-drills/impact-drivers"   # missing from the tree → created
products[62]["category"] = "tools/power-drills/impact-drivers"
products.sort(key=lambda p: p["id"])

with open("input/catalog/products.jsonl", "w") as f:
    for p in products:
        f.write(json.dumps(p, ensure_ascii=False) + "\n")
with open("input/catalog/categories.json", "w") as f:
    json.dump({"categories": [{"id": i, "name": n, "parent": p} for i, n, p in tree]}, f, indent=1)
    f.write("\n")
print(len(products), "products,", len(tree), "categories")
