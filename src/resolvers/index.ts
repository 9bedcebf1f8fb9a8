import type { ContainerType } from 'type-graphql';
import type { Services } from '../composition.js';
import { AgentResolver } from './agent.resolver.js';
import { SmsResolver } from './sms.resolver.js';
import { ContactResolver } from './contact.resolver.js';
import { CampaignResolver } from './campaign.resolver.js';
import { LiveEventResolver } from './live.resolver.js';
import { AuthResolver } from './auth.resolver.js';
import { DashboardResolver } from './dashboard.resolver.js';
import { PhoneNumberResolver } from './phone-number.resolver.js';
import { PipelineResolver } from './pipeline.resolver.js';
import { RoleResolver } from './role.resolver.js';
import { SpamResolver } from './spam.resolver.js';
import { WebhookResolver } from './webhook.resolver.js';
import { WorkflowResolver } from './workflow.resolver.js';

export const resolvers = [AuthResolver, RoleResolver, PipelineResolver, WorkflowResolver, SpamResolver, DashboardResolver, PhoneNumberResolver, AgentResolver, WebhookResolver, SmsResolver, ContactResolver, CampaignResolver, LiveEventResolver] as const;

/** Each resolver made once with the services it uses (type-graphql asks this container for them). */
export function resolverContainer(s: Services): ContainerType {
  const instances = new Map<Function, object>([
    [AuthResolver, new AuthResolver(s.auth)],
    [RoleResolver, new RoleResolver(s.roles, s.ids)],
    [PipelineResolver, new PipelineResolver(s.pipelines)],
    [WorkflowResolver, new WorkflowResolver(s.workflows)],
    [SpamResolver, new SpamResolver(s.spam)],
    [DashboardResolver, new DashboardResolver(s.dashboard)],
    [PhoneNumberResolver, new PhoneNumberResolver(s.phoneNumbers, s.telco, s.purchases)],
    [AgentResolver, new AgentResolver(s.agents)],
    [WebhookResolver, new WebhookResolver(s.webhooks, s.deliveries)],
    [SmsResolver, new SmsResolver(s.sms)],
    [ContactResolver, new ContactResolver(s.contacts)],
    [CampaignResolver, new CampaignResolver(s.campaigns)],
    [LiveEventResolver, new LiveEventResolver()],
  ]);
  return {
    get: (resolver: Function) => {
      const instance = instances.get(resolver);
      if (!instance) throw new Error(`No instance for resolver ${resolver.name}`);
      return instance;
    },
  };
}
