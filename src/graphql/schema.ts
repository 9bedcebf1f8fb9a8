import { GraphQLDateTimeISO } from 'graphql-scalars';
import {
  lexicographicSortSchema,
  printSchema,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { buildSchema, getMetadataStorage, type AuthChecker, type ContainerType } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { AgentResolver } from '../resolvers/agent.resolver.js';
import { SmsResolver } from '../resolvers/sms.resolver.js';
import { ContactResolver } from '../resolvers/contact.resolver.js';
import { CampaignResolver } from '../resolvers/campaign.resolver.js';
import { AuthResolver } from '../resolvers/auth.resolver.js';
import { DashboardResolver } from '../resolvers/dashboard.resolver.js';
import { PhoneNumberResolver } from '../resolvers/phone-number.resolver.js';
import { PipelineResolver } from '../resolvers/pipeline.resolver.js';
import { RoleResolver } from '../resolvers/role.resolver.js';
import { SpamResolver } from '../resolvers/spam.resolver.js';
import { WebhookResolver } from '../resolvers/webhook.resolver.js';
import { WorkflowResolver } from '../resolvers/workflow.resolver.js';
import { attachLiveEvents, LiveEventResolver } from '../resolvers/live.resolver.js';
import { LIVE_EVENT_TYPES } from '../resolvers/live-event.types.js';
import { attachTranscripts, CallTranscriptResolver } from '../resolvers/call-transcript.resolver.js';
import { attachListen, ListenResolver } from '../resolvers/listen.resolver.js';
import { CallFieldsResolver } from '../resolvers/call-fields.resolver.js';
import { CallAnalysisResolver } from '../resolvers/call-analysis.resolver.js';
import type { Services } from '../composition.js';
import { COST_RULE, GRAPHQL_LIMITS } from './limits.js';

const resolvers = [
  AuthResolver,
  RoleResolver,
  PipelineResolver,
  WorkflowResolver,
  SpamResolver,
  DashboardResolver,
  PhoneNumberResolver,
  AgentResolver,
  WebhookResolver,
  SmsResolver,
  ContactResolver,
  CampaignResolver,
  LiveEventResolver,
  CallTranscriptResolver,
  CallAnalysisResolver,
  ListenResolver,
  CallFieldsResolver,
] as const;

/** Each resolver made once with the services it uses (type-graphql asks this container for them). */
function resolverContainer(s: Services): ContainerType {
  const instances = new Map<Function, object>([
    [AuthResolver, new AuthResolver(s.auth)],
    [RoleResolver, new RoleResolver(s.roles, s.ids)],
    [PipelineResolver, new PipelineResolver(s.pipelines)],
    [WorkflowResolver, new WorkflowResolver(s.workflows)],
    [SpamResolver, new SpamResolver(s.spam)],
    [DashboardResolver, new DashboardResolver(s.dashboard, s.analyses)],
    [PhoneNumberResolver, new PhoneNumberResolver(s.phoneNumbers, s.telco, s.purchases)],
    [AgentResolver, new AgentResolver(s.agents)],
    [WebhookResolver, new WebhookResolver(s.webhooks, s.deliveries, s.replays)],
    [SmsResolver, new SmsResolver(s.sms)],
    [ContactResolver, new ContactResolver(s.contacts)],
    [CampaignResolver, new CampaignResolver(s.campaigns)],
    [LiveEventResolver, new LiveEventResolver()],
    [CallTranscriptResolver, new CallTranscriptResolver(s.transcripts)],
    [CallAnalysisResolver, new CallAnalysisResolver(s.analyses)],
    [ListenResolver, new ListenResolver(s.listen)],
    [CallFieldsResolver, new CallFieldsResolver(s.dashboard)],
  ]);
  return {
    get: (resolver: Function) => {
      const instance = instances.get(resolver);
      if (!instance) throw new Error(`No instance for resolver ${resolver.name}`);
      return instance;
    },
  };
}

/** `@Authorized('slug', ...)`: signed in (else 401) and holding every named permission (else 403), through the request context. */
const authChecker: AuthChecker<RequestContext> = async ({ context }, permissions) => {
  await context.requirePermissions(permissions as string[]);
  return true;
};

/** The schema; with `services`, resolvers are wired and every root field runs in its own unit of work. */
export async function createSchema(services?: Services): Promise<GraphQLSchema> {
  propertyFieldsAreSimple();
  const schema = await buildSchema({
    resolvers,
    // The typed live events are reached through the LiveEvent interface only.
    orphanedTypes: LIVE_EVENT_TYPES,
    authChecker,
    authMode: 'error',
    scalarsMap: [{ type: Date, scalar: GraphQLDateTimeISO }],
    validate: false,
    // Every subscription brings its own subscribe function (live events); topics are not used.
    pubSub: {
      publish: () => undefined,
      subscribe: () => {
        throw new Error('Subscriptions here subscribe through their own function.');
      },
    },
    ...(services ? { container: resolverContainer(services) } : {}),
  });
  schema.description =
    `Switchboard: calling and messaging with AI voice agents. Limits: depth ${GRAPHQL_LIMITS.depth}, ` +
    `${GRAPHQL_LIMITS.aliasesPerField} aliases of one field, batches of ${GRAPHQL_LIMITS.batch}. Cost: ${COST_RULE}`;
  if (services) {
    withUnitsOfWork(schema);
    attachLiveEvents(schema, services.live);
    attachTranscripts(schema, services.transcripts);
    attachListen(schema, services.listen);
  }
  return schema;
}

/**
 * A field that only reads its object's property (no @Authorized, no
 * middleware, not renamed, no @FieldResolver) gets graphql's default resolver
 * (type-graphql's `simple` option) instead of type-graphql's wrapper, which
 * runs an empty middleware chain per field per object. graphql-jit then reads
 * such a field inline: a page of 15 roles allocated 30 KB less per request.
 */
function propertyFieldsAreSimple(): void {
  for (const field of getMetadataStorage().fields) {
    if (field.simple === undefined && !field.roles && !field.middlewares?.length && field.schemaName === field.name)
      field.simple = true;
  }
}

type RootResolver = GraphQLFieldResolver<unknown, RequestContext>;

function wrapFields(type: GraphQLObjectType | null | undefined, wrap: (resolve: RootResolver) => RootResolver): void {
  for (const field of Object.values(type?.getFields() ?? {})) {
    if (field.resolve) field.resolve = wrap(field.resolve as RootResolver);
  }
}

/**
 * The unit of work (docs/design.md §3): each mutation field runs in a fork of
 * its own inside one transaction, committed once when the field's resolver
 * succeeds and rolled back when it fails; each query field reads from a fork
 * of its own. Operations of one batch, or fields of one document, never share
 * an EntityManager. The caller (the viewer behind the token) is resolved
 * before the transaction opens, so a transaction never waits for a second
 * connection.
 */
function withUnitsOfWork(schema: GraphQLSchema): void {
  wrapFields(schema.getQueryType(), (resolve) => (root, args, ctx, info) => resolve(root, args, ctx.readOnly(), info));
  wrapFields(
    schema.getMutationType(),
    (resolve) => (root, args, ctx, info) =>
      ctx.unitOfWork((uow) => Promise.resolve(resolve(root, args, uow, info)), {
        plain: PLAIN_MUTATIONS.has(info.fieldName),
        oneStatement: ONE_STATEMENT_MUTATIONS.has(info.fieldName),
      }),
  );
}

/**
 * Mutations whose services run only plain statements (`ctx.read`): their
 * transaction is one of their own, without the ORM's. A service of one of
 * these that touched `ctx.em` would fail at once, never half-commit.
 */
const PLAIN_MUTATIONS = new Set(['updateRole']);

/**
 * Plain mutations whose service runs one statement on every path, which
 * decides everything (a rename: found, not the Owner's, title free, changed,
 * or none of it): that statement is their transaction (unitOfWork's
 * `oneStatement`).
 */
const ONE_STATEMENT_MUTATIONS = new Set(['updateRole']);

/** The text committed as schema.graphql. */
export const schemaText = (schema: GraphQLSchema) => `${printSchema(lexicographicSortSchema(schema))}\n`;
