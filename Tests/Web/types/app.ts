// A small web app over the default tree, typed with the tree's types/index.d.ts (copied beside this file by
// TypeScriptTypesTests, which runs `tsc --noEmit --strict` on it): it reads one file of each output kind and uses
// its fields as an app would. A field the types lacked, or typed differently, fails the check.
import type * as T from "./index";
import { search } from "./search.js";
import { evaluate } from "./flags.js";

async function load<K extends keyof T.Kinds>(base: URL, _kind: K, path: string): Promise<T.Kinds[K]> {
  const response = await fetch(new URL(path, base));
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return (await response.json()) as T.Kinds[K];
}

/** The first leaf of a ranked index's directory tree (term shards, store groups): down `levels` directories from the
 * top level meta.json holds. (A small index has no directories: its leaves are the top level.) */
async function firstLeaf<E>(levels: number, entries: E[], open: (entry: E) => Promise<{ entries: E[] }>): Promise<E> {
  for (let level = 0; level < levels; level++) entries = (await open(entries[0])).entries;
  return entries[0];
}

export async function main(base: URL): Promise<string[]> {
  const out: string[] = [];
  // Releases: the entry point, the file index it names, a delta when there is one.
  const manifest: T.UpdateManifest = await load(base, "update-manifest", "update-manifest.json");
  const index: T.FileIndex = await load(base, "file-index", manifest.fileIndex.path);
  out.push(`version ${manifest.currentVersion}: ${index.files.length} files, forceUpdate ${manifest.forceUpdate}`);
  const delta: T.Delta | null = manifest.previousVersion === null ? null
    : await load(base, "delta", `releases/${manifest.version}/delta-from-${manifest.previousVersion}.json`);
  out.push(`delta from ${delta?.fromVersion ?? "none"}`);
  const config: T.AppConfig = await load(base, "app-config", "app-config.json");
  out.push(`${config.baseURL} ${config.endpoints.searchRanked}`);
  // Feature flags, named by app-config, evaluated by the tree's flags/flags.js.
  const flags: T.FeatureFlags = await load(base, "flags", "config/flags.json");
  const rule = flags.flags["new_checkout"]?.rules[0];
  out.push(`${Object.keys(flags.flags).length} flags at ${config.endpoints.flags ?? "-"}, first ${rule && "rollout" in rule ? `${rule.rollout.percent} %` : "value"}`);
  const evaluated = evaluate(flags, { unit: "install-1", platform: "ios", appVersion: "3.3.0", attributes: { country: "US" } });
  out.push(`new_checkout ${String(evaluated.flags["new_checkout"])}, update ${String(evaluated.update)}`);
  const schema: T.JSONSchemaDocument = await load(base, "json-schema", index.files[0].schema ?? "schemas/app-config.schema.json");
  out.push(typeof schema);
  const openapi: T.Openapi = await load(base, "openapi", "openapi.json");
  out.push(openapi.info.title);

  // Catalog.
  const categories: T.CategoryIndex = await load(base, "category-index", "categories/index.json");
  const first: T.Category = categories.categories[0];
  const page: T.CategoryResponse = await load(base, "category-page", `categories/${first.id}.json`);
  const listed: T.Product = page.products[0];
  out.push(`${page.category_name}: ${page.total_products} products, next ${page.next_page ?? "none"}, ${listed.name} ${listed.price ?? "-"}`);
  const product: T.ProductDetail = await load(base, "product-details", `products/${page.products[0].product_id}/details.json`);
  out.push(`${product.title} by ${product.brand.name}: ${product.pricing.currentPrice} ${product.pricing.currency}, ${product.rating.average}`);
  const featured: T.FeaturedContent = await load(base, "featured-content", "featured-content.json");
  out.push(featured.sections.map((s) => s.title).join(", "));
  const summary: T.Summary = await load(base, "summary", "SUMMARY.json");
  const offline: T.OfflineCatalog = await load(base, "offline-catalog", "offline-catalog.json");
  const links: T.DeeplinkMap = await load(base, "deeplink-map", "deeplink-map.json");
  out.push(`${summary.dataVersion} ${offline.budgetBytes} ${links.scheme}`);
  const full: T.SearchIndex = await load(base, "search-index", "search-index.json");
  const compact: T.SearchIndexCompact = await load(base, "search-index-compact", "search-index-compact.json");
  const entry: T.SearchProduct = full.products[0];
  out.push(`${full.totalProducts} ${compact.products.length} ${entry.name} ${full.keywords["drill"]?.length ?? 0}`);
  const meta: T.SearchMeta = await load(base, "search-meta", "search/meta.json");
  // Term tree entries are [first term, name] pairs; directories are termdirs/{name}.json, shards terms/{name}.json.
  const termShard = await firstLeaf(meta.termShards.levels, meta.termShards.entries, (e) => load(base, "search-term-directory", `search/termdirs/${e[1]}.json`));
  const terms: T.SearchTerms = await load(base, "search-terms", `search/terms/${termShard[1]}.json`);
  // meta.json names the list of vocabulary files.
  const lengths: T.SearchVocabularyList = await load(base, "search-vocabulary-list", meta.vocabulary);
  const vocabulary: T.SearchVocabulary = await load(base, "search-vocabulary", lengths.files[0].path);
  // A field of ranges or thresholds has columns: a file per term shard, down a tree of names cut as the term tree is.
  const columned = meta.facets.find((f) => f.columns);
  if (columned?.columns) {
    const name = await firstLeaf(columned.columns.levels, columned.columns.entries, (e) => load(base, "search-column-directory", `search/coldirs/${e}.json`));
    const columns: T.SearchColumns = await load(base, "search-columns", `search/columns/${name}.json`);
    out.push(`${columns.field} columns: ${columns.columns[0]?.length ?? 0} codes of ${terms.terms[0]}`);
  }
  // Store entries are [documents, name] pairs; directories are stores/{name}.json, a group's first slice of
  // documents store/{name}-0.json.
  const storeGroup = await firstLeaf(meta.store.levels, meta.store.entries, (e) => load(base, "search-store-directory", `search/stores/${e[1]}.json`));
  const store: T.SearchStore = await load(base, "search-store", `search/store/${storeGroup[1]}-0.json`);
  out.push(`${terms.terms[0]} ${vocabulary.length} ${store.documents[0].name} ${store.documents[0].price ?? "no price"}`);
  const facet: T.SearchFacet = await load(base, "search-facet", meta.facets[0].shards[0].path);
  const order: T.SearchOrder = await load(base, "search-order", meta.orders[0].path);
  const chunk: T.SearchSort = await load(base, "search-sort", order.chunks[0].path);
  out.push(`${meta.facets.map((f) => f.field).join(" ")}: ${facet.values[0]} ${order.documents} sorted from ${chunk.keys[0]}`);
  // The search module (search/search.js) with these types.
  const { total, results } = await search("cordless drill", { limit: 5 });
  const hits = results.map((r) => (r.item as T.SearchStore["documents"][number]).name);
  out.push(`${total} results: ${hits.join(", ")}`);
  // Filters, a sort and facet counts.
  const filtered = await search("drill", { limit: 3, filters: { price: ["50..200"], rating: ["4"] }, sort: "price", facets: true });
  out.push(`${filtered.total} filtered${filtered.partial ? " (partly)" : ""}: ${filtered.facets.map((f) => `${f.field} ${f.values[0]?.label ?? "-"}`).join(", ")}`);

  // Auctions.
  const counties: T.AuctionCountyIndex = await load(base, "auction-county-index", "auctions/county-index.json");
  const all: T.AuctionProperties = await load(base, "auction-properties", "auctions/properties.json");
  const parcel: T.PropertyResponse = await load(base, "auction-property", `auctions/properties/${all[0].parcelId}.json`);
  const county: T.AuctionCounty = await load(base, "auction-county", `auctions/counties/${counties.counties[0].slug}.json`);
  const auctionPage: T.AuctionPage = await load(base, "auction-page", "auctions/pages/page-1.json");
  out.push(`${parcel.county}: ${parcel.investmentScore} ${county.length} ${auctionPage.totalPages}`);

  // NBA.
  const totals: T.TotalsAnalysisResponse = await load(base, "nba-totals", "nba/totals/latest.json");
  out.push(`${totals.n_games} games, ${totals.games.map((g) => g.game_id).join(" ")}`);
  const analysed: T.TotalsAnalysisGame[] = totals.games;
  for (const g of analysed) {
    const mc: T.MonteCarloResult | null = g.monte_carlo, ev: T.EVMetrics | null = g.ev_metrics;
    out.push(`${g.home_abbr}-${g.away_abbr}: over ${mc?.p_over ?? "-"}, ${ev?.recommended_bet ?? "no line"}`);
  }
  const backtest: T.NbaBacktest = await load(base, "nba-backtest", "nba/totals/backtest.json");
  const teams: T.NbaTeams = await load(base, "nba-teams", "nba/teams.json");
  const games: T.NbaGames = await load(base, "nba-games", "nba/games.json");
  const players: T.NbaPlayers = await load(base, "nba-players", "nba/players.json");
  const standing: T.TeamStanding = teams[0], game: T.Game = games[0], player: T.PlayerStats = players[0];
  out.push(`${backtest.method} ${standing.full_name} ${standing.win_pct} ${game.home_team} ${player.points_avg}`);
  // The backtest lists the seasons (e.g. "2022-23"), each with a folder of its own.
  const season = Object.keys(backtest.seasons)[0];
  const seasonTeams: T.NbaSeasonTeams = await load(base, "nba-season-teams", `nba/seasons/${season}/teams.json`);
  const seasonGames: T.NbaSeasonGames = await load(base, "nba-season-games", `nba/seasons/${season}/games.json`);
  const seasonPlayers: T.NbaSeasonPlayers = await load(base, "nba-season-players", `nba/seasons/${season}/players.json`);
  out.push(`${seasonTeams.length} ${seasonGames.length} ${seasonPlayers.length}`);

  // Collections (the listings and schools documents' models).
  const listings: T.CollectionListingsIndex = await load(base, "collection-listings-index", "collections/listings/index.json");
  const listingPage: T.PropertyListData = await load(base, "collection-listings-page", listings.firstPage);
  const listing: T.Property = await load(base, "collection-listings-item", `collections/listings/items/${listingPage.properties[0].listing_key}.json`);
  out.push(`${listing.street_address}, ${listing.city}: ${listing.list_price} (${listing.beds} beds, ${listing.features.join("/")})`);
  const schools: T.CollectionSchoolsIndex = await load(base, "collection-schools-index", "collections/schools/index.json");
  const schoolPage: T.CollectionSchoolsPage = await load(base, "collection-schools-page", schools.first_page);
  const school: T.School = await load(base, "collection-schools-item", `collections/schools/items/${schoolPage.items[0].id}.json`);
  out.push(`${school.name} ${school.letter_grade ?? "ungraded"} ${school.composite_score ?? "-"}`);
  const listingMeta: T.CollectionListingsSearchMeta = await load(base, "collection-listings-search-meta", "collections/listings/search/meta.json");
  const listingGroup = await firstLeaf(listingMeta.store.levels, listingMeta.store.entries,
    (e) => load(base, "collection-listings-search-store-directory", `collections/listings/search/stores/${e[1]}.json`));
  const listingStore: T.CollectionListingsSearchStore = await load(base, "collection-listings-search-store", `collections/listings/search/store/${listingGroup[1]}-0.json`);
  const listingTermShard = await firstLeaf(listingMeta.termShards.levels, listingMeta.termShards.entries,
    (e) => load(base, "collection-listings-search-term-directory", `collections/listings/search/termdirs/${e[1]}.json`));
  const listingTerms: T.CollectionListingsSearchTerms = await load(base, "collection-listings-search-terms", `collections/listings/search/terms/${listingTermShard[1]}.json`);
  const listingLengths: T.CollectionListingsSearchVocabularyList = await load(base, "collection-listings-search-vocabulary-list", listingMeta.vocabulary);
  const listingVocabulary: T.CollectionListingsSearchVocabulary = await load(base, "collection-listings-search-vocabulary", listingLengths.files[0].path);
  const listingColumned = listingMeta.facets.find((f) => f.columns);
  if (listingColumned?.columns) {
    const name = await firstLeaf(listingColumned.columns.levels, listingColumned.columns.entries,
      (e) => load(base, "collection-listings-search-column-directory", `collections/listings/search/coldirs/${e}.json`));
    const columns: T.CollectionListingsSearchColumns = await load(base, "collection-listings-search-columns", `collections/listings/search/columns/${name}.json`);
    out.push(`${columns.field} columns: ${columns.columns.length} terms`);
  }
  out.push(`${listingStore.documents[0].street_address} ${listingTerms.terms.length} ${listingVocabulary.terms.length}`);
  // A collection's declared facets and sorts: its facet shards, orders and sort chunks.
  const listingFacet: T.CollectionListingsSearchFacet = await load(base, "collection-listings-search-facet", listingMeta.facets[0].shards[0].path);
  const listingOrder: T.CollectionListingsSearchOrder = await load(base, "collection-listings-search-order", listingMeta.orders[0].path);
  const listingChunk: T.CollectionListingsSearchSort = await load(base, "collection-listings-search-sort", listingOrder.chunks[0].path);
  out.push(`${listingFacet.field} ${listingFacet.values.join("/")}; ${listingMeta.sorts.map((o) => o.name).join(" ")} from ${listingChunk.keys[0]}`);
  const schoolMeta: T.CollectionSchoolsSearchMeta = await load(base, "collection-schools-search-meta", "collections/schools/search/meta.json");
  const schoolGroup = await firstLeaf(schoolMeta.store.levels, schoolMeta.store.entries,
    (e) => load(base, "collection-schools-search-store-directory", `collections/schools/search/stores/${e[1]}.json`));
  const schoolStore: T.CollectionSchoolsSearchStore = await load(base, "collection-schools-search-store", `collections/schools/search/store/${schoolGroup[1]}-0.json`);
  const schoolTermShard = await firstLeaf(schoolMeta.termShards.levels, schoolMeta.termShards.entries,
    (e) => load(base, "collection-schools-search-term-directory", `collections/schools/search/termdirs/${e[1]}.json`));
  const schoolTerms: T.CollectionSchoolsSearchTerms = await load(base, "collection-schools-search-terms", `collections/schools/search/terms/${schoolTermShard[1]}.json`);
  const schoolLengths: T.CollectionSchoolsSearchVocabularyList = await load(base, "collection-schools-search-vocabulary-list", schoolMeta.vocabulary);
  const schoolVocabulary: T.CollectionSchoolsSearchVocabulary = await load(base, "collection-schools-search-vocabulary", schoolLengths.files[0].path);
  const schoolColumned = schoolMeta.facets.find((f) => f.columns);
  if (schoolColumned?.columns) {
    const name = await firstLeaf(schoolColumned.columns.levels, schoolColumned.columns.entries,
      (e) => load(base, "collection-schools-search-column-directory", `collections/schools/search/coldirs/${e}.json`));
    const columns: T.CollectionSchoolsSearchColumns = await load(base, "collection-schools-search-columns", `collections/schools/search/columns/${name}.json`);
    out.push(`${columns.field} columns: ${columns.columns.length} terms`);
  }
  out.push(`${schoolStore.documents[0].name} ${schoolTerms.terms.length} ${schoolVocabulary.length}`);
  const schoolFacet: T.CollectionSchoolsSearchFacet = await load(base, "collection-schools-search-facet", schoolMeta.facets[0].shards[0].path);
  const schoolOrder: T.CollectionSchoolsSearchOrder = await load(base, "collection-schools-search-order", schoolMeta.orders[0].path);
  const schoolChunk: T.CollectionSchoolsSearchSort = await load(base, "collection-schools-search-sort", schoolOrder.chunks[0].path);
  out.push(`${schoolFacet.field} ${schoolFacet.values.length} values; browse by ${schoolMeta.browse ?? "document order"} from ${schoolChunk.keys[0]}`);
  return out;
}
