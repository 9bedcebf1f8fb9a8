import { Arg, Ctx, ID, Resolver, Root, Subscription } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { ForbiddenError } from '../kernel/errors.js';
import type { CampaignService } from '../services/campaign.service.js';
import type { LiveEvent } from '../services/live-events.js';
import { CampaignProgressType, progressOf } from './campaign.resolver.js';
import { hubOf } from './live.resolver.js';

// A campaign's progress as it changes (docs/dialer.md): its counts by state now, then again each time one of its
// calls ends or the campaign itself changes, over graphql-ws on /graphql. Requires view-campaigns.

/** The events that move a campaign's counts. */
const MOVING = [
  'lead.called',
  'lead.generated',
  'campaign.started',
  'campaign.paused',
  'campaign.resumed',
  'campaign.canceled',
  'campaign.completed',
];

@Resolver()
export class CampaignProgressResolver {
  constructor(private readonly campaigns: CampaignService) {}

  @Subscription(() => CampaignProgressType, {
    description:
      "A campaign's leads by state: now, then each time a call of it ends or it changes. Requires view-campaigns.",
    subscribe: async ({ args, context, info }) => {
      const ctx = context as RequestContext;
      const viewer = await ctx.requirePermissions(['view-campaigns']);
      const hub = hubOf(info.schema);
      if (!hub) throw new Error('Live events are not served by this process.');
      const companyId = viewer.company.id;
      const recheck = async () => {
        const now = await ctx.again().requirePermissions(['view-campaigns']);
        if (now.company.id !== companyId) throw new ForbiddenError();
      };
      const events = hub.subscribe(companyId, MOVING, { viewer, recheck });
      const id = String(args.id);
      return (async function* (): AsyncGenerator<LiveEvent | null> {
        yield null;
        for await (const event of events) if (String(event.data.campaign_id) === id) yield event;
      })();
    },
  })
  async campaignProgress(
    @Root() _event: LiveEvent | null,
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
  ): Promise<CampaignProgressType> {
    return progressOf(await this.campaigns.progress(ctx, id));
  }
}
