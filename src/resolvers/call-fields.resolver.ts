import DataLoader from 'dataloader';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Ctx, Extensions, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { BOUNDS, scalarValues } from '../kernel/bounds.js';
import { FIELD_NAME } from '../kernel/call-rules.js';
import type { RequestContext } from '../context/request-context.js';
import type { CallDetailsRecord } from '../services/calls/records.js';
import type { DashboardService } from '../services/dashboard.service.js';
import { NotFoundError } from '../kernel/errors.js';
import { CallContactType, CallType } from './dashboard.types.js';
import { CallDecisionType } from './decision.types.js';

// The fields of a Call beyond a row of the appointment list. A call given
// with its details (callDetails, analyzeCall) has them already; a list row
// (appointmentCalls, bookCallAppointment) reads them when a client asks, for
// every row of the page in one statement (a DataLoader per request), under
// the permission callDetails asks for (view-ai-dashboard).

type CallRoot = CallType | CallDetailsRecord;

const loaders = new WeakMap<RequestContext, DataLoader<number, CallDetailsRecord>>();

@Resolver(() => CallType)
export class CallFieldsResolver {
  constructor(private readonly dashboard: DashboardService) {}

  private details(ctx: RequestContext, call: CallRoot): Promise<CallDetailsRecord> | CallDetailsRecord {
    if ('encryptedId' in call) return call;
    let loader = loaders.get(ctx);
    if (!loader) {
      loader = new DataLoader<number, CallDetailsRecord>(async (ids) => {
        const found = await this.dashboard.detailsOf(ctx, [...ids]);
        return ids.map((id) => found.get(id) ?? new NotFoundError('Call'));
      });
      loaders.set(ctx, loader);
    }
    return loader.load(call.id);
  }

  @FieldResolver(() => String, { description: 'The id in its encrypted form' })
  async encryptedId(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).encryptedId;
  }

  @FieldResolver(() => Int, { nullable: true })
  async agentId(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).agentId;
  }

  @FieldResolver(() => String, { nullable: true })
  async recordingUrl(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).recordingUrl;
  }

  @FieldResolver(() => String, { nullable: true })
  async transcript(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).transcript;
  }

  @FieldResolver(() => String, { nullable: true })
  async disposition(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).disposition;
  }

  @FieldResolver(() => [String])
  async tags(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).tags;
  }

  @FieldResolver(() => GraphQLJSONObject)
  async customFields(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).customFields;
  }

  @FieldResolver(() => CallContactType)
  async contact(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).contact;
  }

  @FieldResolver(() => String, { nullable: true, description: 'The post-call analysis: what the call was about' })
  async summary(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).summary;
  }

  @FieldResolver(() => Boolean, {
    nullable: true,
    description: 'Whether the call reached its goal, as the analysis judged',
  })
  async successful(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).successful;
  }

  @FieldResolver(() => GraphQLJSONObject, { description: "The company's own analysis fields" })
  @Extensions({ jsonSchema: scalarValues(BOUNDS.analysis.fieldValue.maxLength, FIELD_NAME) })
  async customAnalysis(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).customAnalysis;
  }

  @FieldResolver(() => Date, { nullable: true, description: 'When the analysis was last recorded (call.analyzed)' })
  async analyzedAt(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).analyzedAt;
  }

  @FieldResolver(() => CallDecisionType, {
    nullable: true,
    description: 'How the call was routed, when the provider asked Switchboard to route it (inbound calls)',
  })
  async decision(@Root() call: CallRoot, @Ctx() ctx: RequestContext) {
    return (await this.details(ctx, call)).decision;
  }
}
