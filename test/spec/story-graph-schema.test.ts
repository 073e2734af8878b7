/**
 * Story update graphs (spec/stories.ts `StoryRelationships`) and the article graph are two schemas: story nodes are
 * exactly {id, type, detailed_type}; only the article graph's nodes carry ner_type.
 */
import { describe, expect, it } from 'vitest';
import { GraphRelationships, StoryRelationships, StoryUpdate, buildOpenApi } from '../../spec/index.js';
import { strictValidator } from '../helpers/strict-schema.js';

const node = { id: 'Kyiv', type: 'Location', detailed_type: 'Location' };
const edge = { from: 'Kyiv', to: 'Zelensky', label: 'mentioned_with' };

describe('story graph schema', () => {
  it('a story node with ner_type is rejected, by zod and by a strict client', () => {
    const bad = { nodes: [{ ...node, ner_type: 'Location' }], edges: [edge] };
    expect(StoryRelationships.safeParse(bad).success).toBe(false);
    expect(StoryUpdate.shape.relationships.safeParse(bad).success).toBe(false);
    expect(strictValidator(StoryRelationships)(bad)).not.toEqual([]);
  });
  it('a story node of id, type and detailed_type passes, by zod and by a strict client', () => {
    const good = { nodes: [node], edges: [edge] };
    expect(StoryRelationships.parse(good)).toEqual(good);
    expect(strictValidator(StoryRelationships)(good)).toEqual([]);
  });
  it('the article graph keeps ner_type on its nodes', () => {
    const art = { nodes: [{ ...node, ner_type: 'Location' }], edges: [edge] };
    expect(GraphRelationships.parse(art)).toEqual(art);
    expect(strictValidator(GraphRelationships)(art)).toEqual([]);
  });
  it('the OpenAPI document names ner_type for article graph nodes and not for story graph nodes', () => {
    type Schema = { properties: Record<string, { $ref?: string; items: { propertyNames: { enum: string[] } } }> };
    const schemas = (buildOpenApi() as { components: { schemas: Record<string, Schema> } }).components.schemas;
    const keysOf = (id: string) => [...schemas[id]!.properties.nodes!.items.propertyNames.enum].sort();
    expect(schemas.StoryUpdate!.properties.relationships).toEqual({ $ref: '#/components/schemas/StoryRelationships' });
    expect(keysOf('StoryRelationships')).toEqual(['detailed_type', 'id', 'type']);
    expect(keysOf('GraphRelationships')).toEqual(['detailed_type', 'id', 'ner_type', 'type']);
  });
});
