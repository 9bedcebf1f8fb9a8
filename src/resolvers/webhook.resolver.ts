import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { EVENT_DOCS } from '../events/catalog.js';
import { FORM_FIELDS, LIST_SELECTIONS } from '../webhooks/config/payload.js';
import { testFilter } from '../webhooks/config/filters.js';
import type { DeliveryService } from '../webhooks/tools/delivery.service.js';
import type { WebhookService } from '../webhooks/config/webhook.service.js';
import type { ReplayService } from '../webhooks/tools/replay.service.js';
import {
  CreatedWebhookType,
  CreateWebhookInput,
  StoredEventPageType,
  WebhookFilterTestType,
  WebhookDeliveryPageType,
  WebhookDeliveryType,
  WebhookEventTypeType,
  WebhookFormFieldsType,
  WebhookInput,
  WebhookPageType,
  WebhookPublicKeyType,
  WebhookRecoveryType,
  WebhookReplayPreviewType,
  WebhookReplayType,
  WebhookSecretType,
  WebhookType,
} from './webhook.types.js';
import { DeliveryStatus, WebhookEvent } from './enums.js';

@Resolver()
export class WebhookResolver {
  constructor(
    private readonly webhookService: WebhookService,
    private readonly deliveries: DeliveryService,
    private readonly replays: ReplayService,
  ) {}

  @Authorized('view-webhooks')
  @Query(() => WebhookPageType, { description: 'Webhooks of the company, newest first' })
  async webhooks(
    @Ctx() ctx: RequestContext,
    @Arg('search', () => String, { nullable: true }) search: string | null,
    @Arg('event', () => WebhookEvent, { nullable: true }) event: string | null,
    @Arg('active', () => Boolean, { nullable: true }) active: boolean | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ): Promise<WebhookPageType> {
    return this.webhookService.list(ctx, { search, event, active, page, perPage });
  }

  @Authorized('view-webhooks')
  @Query(() => WebhookType)
  async webhook(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.webhookService.view(ctx, id);
  }

  @Authorized('manage-webhooks')
  @Query(() => WebhookSecretType, {
    description: 'The signing secret (and, during a rotation, when the previous one expires)',
  })
  webhookSecret(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.webhookService.secret(ctx, id);
  }

  @Authorized('view-webhooks')
  @Query(() => WebhookPublicKeyType, {
    description: "An Ed25519 (v1a) webhook's public keys (NOT_FOUND for a v1 webhook)",
  })
  webhookPublicKey(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.webhookService.publicKey(ctx, id);
  }

  @Authorized('view-webhooks')
  @Query(() => WebhookDeliveryPageType, { description: 'Deliveries of a webhook, newest first' })
  async webhookDeliveries(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('status', () => DeliveryStatus, { nullable: true }) status: string | null,
    @Arg('event', () => WebhookEvent, { nullable: true }) event: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ): Promise<WebhookDeliveryPageType> {
    return this.deliveries.deliveries(ctx, id, { status, event, page, perPage });
  }

  @Authorized('view-webhooks')
  @Query(() => StoredEventPageType, {
    description:
      "Events the webhook's payload filters turned away (no delivery was made), newest first; kept for WEBHOOK_RETENTION",
  })
  async webhookFilteredEvents(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ): Promise<StoredEventPageType> {
    return this.deliveries.filtered(ctx, id, { page, perPage });
  }

  @Authorized('view-webhooks')
  @Query(() => StoredEventPageType, {
    description:
      "The company's operator events (webhook.failing, webhook.disabled, webhook.recovered, " +
      'delivery.exhausted), newest first; with webhookId, those about that webhook. Kept for WEBHOOK_RETENTION',
  })
  async webhookNotices(
    @Ctx() ctx: RequestContext,
    @Arg('webhookId', () => ID, { nullable: true }) webhookId: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
    @Arg('open', () => Boolean, {
      nullable: true,
      description:
        'Only the notices whose matter still holds: a delivery not yet succeeded, a webhook still off or failing, a recovery of the last day',
    })
    open: boolean | null,
  ): Promise<StoredEventPageType> {
    return this.deliveries.notices(ctx, webhookId, { page, perPage, open });
  }

  @Authorized('view-webhooks')
  @Query(() => WebhookFilterTestType, {
    description:
      'Checks a payload filter for an event type (errors name each bad path or value) and whether data ' +
      "passes it: the event type's example data when none is given",
  })
  testWebhookFilter(
    @Arg('event', () => WebhookEvent) event: string,
    @Arg('filter', () => GraphQLJSONObject) filter: Record<string, unknown>,
    @Arg('data', () => GraphQLJSONObject, { nullable: true }) data: Record<string, unknown> | null,
  ): WebhookFilterTestType {
    return testFilter(event, filter, data);
  }

  @Authorized('view-webhooks')
  @Query(() => WebhookDeliveryPageType, {
    description:
      'Deliveries about one call, campaign, contact or agent across every webhook of the company, newest first; give exactly one id',
  })
  async webhookDeliveriesBySubject(
    @Ctx() ctx: RequestContext,
    @Arg('callId', () => ID, { nullable: true }) callId: string | null,
    @Arg('campaignId', () => ID, { nullable: true }) campaignId: string | null,
    @Arg('contactId', () => ID, { nullable: true }) contactId: string | null,
    @Arg('agentId', () => ID, { nullable: true }) agentId: string | null,
    @Arg('page', () => Int, { nullable: true }) page: number | null,
    @Arg('perPage', () => Int, { nullable: true }) perPage: number | null,
  ): Promise<WebhookDeliveryPageType> {
    return this.deliveries.bySubject(ctx, { callId, campaignId, contactId, agentId, page, perPage });
  }

  @Authorized('view-webhooks')
  @Query(() => WebhookDeliveryType, { description: 'One delivery with its payload and every attempt' })
  async webhookDelivery(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.deliveries.delivery(ctx, id);
  }

  @Authorized()
  @Query(() => [WebhookEventTypeType], {
    description:
      "Every event type (the spec's sixteen and the four operator events) with the JSON Schema of its data and an example",
  })
  webhookEventTypes(): WebhookEventTypeType[] {
    return EVENT_DOCS.map((doc) => ({ ...doc }));
  }

  @Authorized()
  @Query(() => WebhookFormFieldsType, { description: 'Contact field names and the list selections' })
  webhookFormFields(): WebhookFormFieldsType {
    return {
      fields: [...FORM_FIELDS],
      listSelections: [
        ...Object.entries(LIST_SELECTIONS).map(([name, fields]) => ({ name, fields: [...fields] })),
        { name: 'Custom', fields: [] },
      ],
    };
  }

  @Authorized('manage-webhooks')
  @Mutation(() => CreatedWebhookType)
  async createWebhook(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateWebhookInput) input: CreateWebhookInput,
  ): Promise<CreatedWebhookType> {
    return this.webhookService.create(ctx, input);
  }

  @Authorized('manage-webhooks')
  @Mutation(() => WebhookType, { description: 'Change any field; active true clears disabledReason' })
  async updateWebhook(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string, @Arg('input') input: WebhookInput) {
    return this.webhookService.update(ctx, id, input);
  }

  @Authorized('manage-webhooks')
  @Mutation(() => Boolean)
  async deleteWebhook(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    await this.webhookService.delete(ctx, id);
    return true;
  }

  @Authorized('manage-webhooks')
  @Mutation(() => WebhookSecretType, {
    description: 'A new secret; the previous one keeps signing during the grace period',
  })
  rotateWebhookSecret(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.webhookService.rotateSecret(ctx, id);
  }

  @Authorized('manage-webhooks')
  @Mutation(() => WebhookDeliveryType, { description: "Send an event's documented example now" })
  async testWebhook(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('event', () => WebhookEvent, { nullable: true }) event: string | null,
  ) {
    return this.deliveries.test(ctx, id, event);
  }

  @Authorized('manage-webhooks')
  @Mutation(() => WebhookDeliveryType, {
    description: 'Send a finished delivery again with a fresh schedule of five attempts',
  })
  async resendWebhookDelivery(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string) {
    return this.deliveries.resend(ctx, id);
  }

  @Authorized('manage-webhooks')
  @Mutation(() => WebhookRecoveryType, {
    description: 'Re-send every failed delivery created in the window (at most 14 days)',
  })
  async recoverWebhookDeliveries(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('since') since: string,
    @Arg('until', () => String, { nullable: true }) until: string | null,
  ) {
    return { count: await this.deliveries.recover(ctx, id, since, until) };
  }

  @Authorized('view-webhooks')
  @Query(() => WebhookReplayPreviewType, {
    description:
      'How many events of its subscribed types in the window (at most the retention, 30 days) the webhook ' +
      'never got a delivery of: what replayMissingWebhookEvents would send',
  })
  webhookReplayPreview(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('since') since: string,
    @Arg('until', () => String, { nullable: true }) until: string | null,
  ) {
    return this.replays.preview(ctx, id, since, until);
  }

  @Authorized('manage-webhooks')
  @Mutation(() => WebhookReplayType, {
    description:
      "Sends the events of the webhook's subscribed types in the window that it never got a delivery of " +
      'and its filters pass, in the order they happened; running it again sends nothing new',
  })
  replayMissingWebhookEvents(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('since') since: string,
    @Arg('until', () => String, { nullable: true }) until: string | null,
  ) {
    return this.replays.replay(ctx, id, since, until);
  }
}
