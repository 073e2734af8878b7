/** geo_lat/geo_lon/geo_radius, geo_polygon with interiors, return_geo and return_graphs (plan-gated). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service.js';
import { search, startCorpusService } from '../../helpers/news.js';
import { haversine } from '../../../service/search/filters.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService();
});
afterAll(async () => svc?.stop());
const all = { historical: true, n_articles: 101, return_geo: true };
const PARIS = { lat: 48.8566, lon: 2.3522 };
const points = (d: { geo_coordinates: Record<string, { latitude: number; longitude: number }> | null }) => Object.values(d.geo_coordinates ?? {});
const ring = (pts: [number, number][]) => pts.map(([lon, lat]) => ({ lon, lat }));

describe('geo filters', () => {
  it('a 50 km radius around Paris returns only articles located within it', async () => {
    const r = await search(svc, { ...all, geo_lat: PARIS.lat, geo_lon: PARIS.lon, geo_radius: 50_000 }, svc.keys.analyst);
    expect(r.status).toBe(200);
    expect(r.dicts.length).toBeGreaterThan(5);
    for (const d of r.dicts) expect(points(d).some((p) => haversine(PARIS.lat, PARIS.lon, p.latitude, p.longitude) <= 50_000)).toBe(true);
    const wider = await search(svc, { ...all, geo_lat: PARIS.lat, geo_lon: PARIS.lon, geo_radius: 1_000_000 }, svc.keys.analyst);
    expect(wider.dicts.length).toBeGreaterThan(r.dicts.length);
    expect(wider.dicts.some((d) => points(d).every((p) => haversine(PARIS.lat, PARIS.lon, p.latitude, p.longitude) > 50_000))).toBe(true);
  });
  it('geo_polygon keeps points inside the exterior and outside the interiors', async () => {
    // western Europe, with a hole around Paris
    const exterior = ring([
      [-11, 35],
      [20, 35],
      [20, 60],
      [-11, 60],
      [-11, 35],
    ]);
    const hole = ring([
      [1.5, 48.3],
      [3.2, 48.3],
      [3.2, 49.3],
      [1.5, 49.3],
      [1.5, 48.3],
    ]);
    const inEurope = await search(svc, { ...all, geo_polygon: JSON.stringify({ exterior }) }, svc.keys.analyst);
    expect(inEurope.dicts.length).toBeGreaterThan(20);
    const inside = (p: { latitude: number; longitude: number }, box: { lon: number; lat: number }[]) =>
      p.longitude >= box[0]!.lon && p.longitude <= box[1]!.lon && p.latitude >= box[0]!.lat && p.latitude <= box[2]!.lat;
    for (const d of inEurope.dicts) expect(points(d).some((p) => inside(p, exterior))).toBe(true);
    const holed = await search(svc, { ...all, geo_polygon: JSON.stringify({ exterior, interiors: [hole] }) }, svc.keys.analyst);
    for (const d of holed.dicts) expect(points(d).some((p) => inside(p, exterior) && !inside(p, hole))).toBe(true);
    const parisOnly = inEurope.dicts.filter((d) => points(d).every((p) => inside(p, hole)));
    expect(parisOnly.length).toBeGreaterThan(0);
    for (const d of parisOnly) expect(holed.dicts.map((x) => x.article_id)).not.toContain(d.article_id);
  });
  it('return_geo fills geo_coordinates, return_graphs fills entity_relation_graph; both need analyst', async () => {
    const q = { query: 'Zelensky Kyiv', historical: true, n_articles: 5 };
    const plain = await search(svc, q, svc.keys.analyst);
    expect(plain.dicts.every((d) => d.geo_coordinates === null && d.entity_relation_graph === null)).toBe(true);
    const rich = await search(svc, { ...q, return_geo: true, return_graphs: true }, svc.keys.analyst);
    expect(rich.dicts.some((d) => Object.keys(d.geo_coordinates ?? {}).length > 0)).toBe(true);
    const g = rich.dicts.find((d) => (d.entity_relation_graph?.nodes.length ?? 0) > 1)!;
    expect(g.entity_relation_graph!.nodes[0]).toEqual({
      id: expect.any(String),
      type: expect.any(String),
      detailed_type: expect.any(String),
      ner_type: expect.any(String),
    });
    expect(g.entity_relation_graph!.edges.length).toBeGreaterThan(0);
    expect((await search(svc, { ...q, return_geo: true }, svc.keys.personal)).status).toBe(403);
  });
});
