import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { generatedArtifacts } from '../src/platform/generated.js';
import { routeTable } from '../src/rest/routes/index.js';

// schema.graphql and openapi.json are generated from the code and committed;
// these fail when either drifts (fix: npm run generate).

describe('generated artifacts', async () => {
  const artifacts = await generatedArtifacts();

  for (const [file, text] of Object.entries(artifacts)) {
    it(`${file} matches the code`, () => {
      assert.equal(readFileSync(file, 'utf8'), text, `${file} is stale: run npm run generate`);
    });
  }

  it('the OpenAPI document has every method and path of the route table', () => {
    const document = JSON.parse(artifacts['openapi.json']);
    for (const route of routeTable) {
      for (const path of route.paths) {
        for (const method of route.methods) {
          assert.ok(document.paths[path]?.[method.toLowerCase()], `${method} ${path}`);
        }
      }
    }
    const ids = Object.values(document.paths).flatMap((ops: any) =>
      Object.values(ops).map((op: any) => op.operationId),
    );
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });

  it("the spec's alternate paths and methods are rows of the table", () => {
    const has = (method: string, path: string) =>
      routeTable.some((r) => r.methods.includes(method as never) && r.paths.includes(path));
    assert.ok(has('PUT', '/api/roles/update/{id}'));
    assert.ok(has('POST', '/api/roles/{id}/permissions'));
    assert.ok(has('DELETE', '/api/roles/delete/{id}'));
  });
});
