import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApi, ROUTES } from '../../spec/index.js';
import { interfaceOperations } from '../helpers/interface.js';

describe('OpenAPI document generated from spec/', () => {
  const doc = buildOpenApi() as { openapi: string; paths: Record<string, Record<string, any>>; components: any };

  it('passes the OpenAPI 3.1 schema validator', async () => {
    const v = new Validator();
    const res = await v.validate(doc as never);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(v.version).toBe('3.1');
    // the validator is not a rubber stamp: a parameter in an invalid location is refused
    const broken = structuredClone(doc);
    broken.paths['/v1/news/search']!.get.parameters[0].in = 'body';
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it('lists every path and method of the interface', () => {
    for (const op of interfaceOperations()) {
      expect(doc.paths[op.path]?.[op.method.toLowerCase()], `${op.method} ${op.path}`).toBeDefined();
    }
    expect(Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0)).toBe(ROUTES.length + 1); // + oauth token
  });

  it('describes the search parameters with their rules', () => {
    const params = doc.paths['/v1/news/search']!.get.parameters as { name: string; schema: any }[];
    const n = params.find((p) => p.name === 'n_articles')!;
    expect(n.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 101, default: 10 });
    const voice = params.find((p) => p.name === 'reporting_voice')!;
    expect(JSON.stringify(voice.schema)).toContain('Sensational');
    expect(doc.paths['/v1/news']!.get.parameters.find((p: any) => p.name === 'article_ids').schema.maxItems).toBe(100);
    const limit = doc.paths['/v1/distribution/articles/top_n_for_domains']!.get.parameters.find((p: any) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 10 });
  });

  it('documents the error bodies and security of each operation', () => {
    const op = doc.paths['/v1/distribution/stats/hit_share']!.get;
    expect(op.security).toEqual([{ APIKey: ['distribution'] }, { OAuth2: ['distribution'] }]);
    expect(op.responses['422'].content['application/json'].schema.$ref).toBe('#/components/schemas/ValidationErrorModel');
    expect(op.responses['429']).toBeDefined();
    expect(doc.paths['/']!.get.security).toEqual([]);
    expect(doc.components.schemas.SearchResponseDictItem.required).toContain('as_string_key');
  });
});
