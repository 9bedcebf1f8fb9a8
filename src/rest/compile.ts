import { parse, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import type { HttpMethod, Route } from './route.js';

// At start, each row's operation is parsed and validated against the schema
// once; a row that does not fit the schema stops the start.

export interface CompiledRoute {
  route: Route;
  method: HttpMethod;
  path: string;
  segments: string[];
  document: DocumentNode;
  /** Permissions the operation's root field requires (read from its @Authorized). */
  permissions: string[];
}

/** Permission slugs declared with @Authorized on each root field, by field name. */
export function rootFieldPermissions(): Map<string, string[]> {
  const storage = getMetadataStorage();
  const byField = new Map<string, string[]>();
  for (const handler of [...storage.queries, ...storage.mutations]) {
    const authorized = storage.authorizedFields.find(
      (entry) => entry.target === handler.target && entry.fieldName === handler.methodName,
    );
    if (authorized) byField.set(handler.schemaName, [...(authorized.roles as string[])]);
  }
  return byField;
}

export function compileRoutes(schema: GraphQLSchema, routes: Route[]): CompiledRoute[] {
  const permissions = rootFieldPermissions();
  const compiled: CompiledRoute[] = [];
  for (const route of routes) {
    const document = parse(route.document);
    const problems = validate(schema, document);
    if (problems.length > 0) {
      throw new Error(`Route ${route.operationId}: its operation does not fit the schema: ${problems.map((p) => p.message).join('; ')}`);
    }
    const operation = document.definitions[0] as OperationDefinitionNode;
    const fields = operation.selectionSet.selections.map((s) => (s.kind === 'Field' ? s.name.value : ''));
    if (!fields.includes(route.response.field)) {
      throw new Error(`Route ${route.operationId}: the operation does not select ${route.response.field}`);
    }
    for (const method of route.methods) {
      for (const path of route.paths) {
        compiled.push({
          route,
          method,
          path,
          segments: path.split('/').filter(Boolean),
          document,
          permissions: permissions.get(route.response.field) ?? [],
        });
      }
    }
  }
  return compiled;
}

export interface Match {
  route: CompiledRoute;
  params: Record<string, string>;
}

/**
 * Finds the row for a path. Literal segments beat parameters, so
 * /api/roles/update/{id} and /api/x/flag-settings win over /api/x/{id}.
 * Returns the methods the path takes when the method does not fit (405).
 */
export function matchRoute(routes: CompiledRoute[], method: string, path: string): Match | { allowed: string[] } | undefined {
  const parts = path.split('/').filter(Boolean);
  let best: { route: CompiledRoute; params: Record<string, string>; score: number } | undefined;
  const allowed = new Set<string>();
  let bestPathScore = -1;
  for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let score = 0;
    let fits = true;
    for (let i = 0; i < parts.length && fits; i++) {
      const segment = route.segments[i];
      if (segment.startsWith('{')) {
        try {
          params[segment.slice(1, -1)] = decodeURIComponent(parts[i]);
        } catch {
          fits = false;
        }
      } else if (segment === parts[i]) {
        score += 1 << (parts.length - i);
      } else {
        fits = false;
      }
    }
    if (!fits || score < bestPathScore) continue;
    if (score > bestPathScore) {
      bestPathScore = score;
      allowed.clear();
      best = undefined;
    }
    allowed.add(route.method);
    if (route.method === method && (!best || score > best.score)) best = { route, params, score };
  }
  if (best) return { route: best.route, params: best.params };
  return allowed.size > 0 ? { allowed: [...allowed] } : undefined;
}
