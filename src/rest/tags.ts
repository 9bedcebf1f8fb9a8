// The OpenAPI document's tags: one per area of the API, with what it holds.

export const TAGS: Record<string, string> = {
  Authentication: 'Sign in and out with Bearer tokens',
  Roles: 'Roles of the company and the permissions they grant',
  'Phone numbers': 'Numbers bought or imported from the telephony provider, and the provider account',
  'Spam protection': 'Numbers watched for carrier spam flags',
  'AI dashboard': 'Calls of the AI agents that booked appointments, and their totals',
  'AI agents': 'The AI voice agents of the company',
  Pipelines: 'CRM pipelines and their stages',
  Workflows: 'Automation workflows and their folders',
  Webhooks: 'Signed event deliveries: configuration, secrets, the delivery log',
  'Call routing':
    "Decision endpoints: the company's URL asked, within a deadline, how to route an inbound call, and its fallback",
  Events: 'Every event of the company, oldest first after a cursor, for consumers who pull',
  Contacts: 'The people calls, SMS and leads concern; their fields are the webhook form data fields',
  'Campaigns and leads': 'Dialer campaigns, the leads in them or in pipeline stages, and appointments booked on calls',
  Messaging: 'SMS sent through the provider and received from it',
  'Provider callbacks':
    'What the telephony provider posts: form-encoded, signed with X-Telco-Signature, no Bearer token',
};
