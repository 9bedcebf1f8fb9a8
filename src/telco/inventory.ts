// The simulator's seeded inventory: accounts (one per demo company, plus any
// a test adds), numbers for sale, numbers already on each account, and
// messaging services with their A2P campaigns.

export type NumberType = 'local' | 'mobile' | 'tollfree';

export const PRICES: Record<NumberType, string> = { local: '1.15', mobile: '1.50', tollfree: '2.15' };

export interface SimAccount {
  sid: string;
  authToken: string;
  balance: number;
  incoming: SimIncoming[];
  services: SimService[];
}

export interface SimIncoming {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  type: NumberType;
  messagingServiceSid?: string;
}

export interface SimService {
  sid: string;
  friendlyName: string;
  inboundRequestUrl: string | null;
  statusCallback: string | null;
  campaigns: Array<{ sid: string; status: string; useCase: string; description: string }>;
}

export interface SimAvailable {
  phoneNumber: string;
  friendlyName: string;
  region: string;
  type: NumberType;
}

const REGIONS: Record<string, string> = {
  '212': 'NY',
  '312': 'IL',
  '415': 'CA',
  '646': 'NY',
  '720': 'CO',
  '800': 'US',
  '888': 'US',
};

export function availableInventory(): SimAvailable[] {
  const out: SimAvailable[] = [];
  const add = (area: string, type: NumberType, count: number, base: number) => {
    for (let i = 0; i < count; i++) {
      const line = String(base + i * 37).padStart(4, '0');
      out.push({
        phoneNumber: `+1${area}555${line}`,
        friendlyName: `(${area}) 555-${line}`,
        region: REGIONS[area],
        type,
      });
    }
  };
  for (const area of ['212', '312', '415', '646', '720']) add(area, 'local', 6, 3100);
  for (const area of ['415', '646']) add(area, 'mobile', 4, 4200);
  for (const area of ['800', '888']) add(area, 'tollfree', 3, 5300);
  return out;
}

/** Account sid of a demo company: "AC" and 32 hex digits derived from its key. */
export const demoAccountSid = (key: string) => `AC${Buffer.from(key.padEnd(16, '0').slice(0, 16)).toString('hex')}`;
export const demoAuthToken = (key: string) => `demo-auth-token-${key}`;

export const DEMO_ACCOUNTS: Array<{ key: string; balance: number }> = [
  { key: 'acme', balance: 20 },
  { key: 'beta', balance: 10 },
  { key: 'gamma', balance: 1 },
];

export function demoAccount(key: string, balance: number, index: number): SimAccount {
  const sid = demoAccountSid(key);
  const area = ['646', '720', '312'][index % 3];
  const incoming: SimIncoming[] = [0, 1, 2].map((i) => ({
    sid: `PN${key}${String(i).padStart(30 - key.length, '0')}`,
    phoneNumber: `+1${area}555${String(7000 + index * 10 + i)}`,
    friendlyName: `(${area}) 555-${7000 + index * 10 + i}`,
    type: i === 2 ? 'mobile' : 'local',
  }));
  const services: SimService[] = [
    {
      sid: `MG${key}${'1'.padStart(30 - key.length, '0')}`,
      friendlyName: `${key} marketing`,
      inboundRequestUrl: null,
      statusCallback: null,
      campaigns: [
        {
          sid: `QE${key}${'1'.padStart(30 - key.length, '0')}`,
          status: 'VERIFIED',
          useCase: 'MARKETING',
          description: 'Promotions and offers',
        },
      ],
    },
    {
      sid: `MG${key}${'2'.padStart(30 - key.length, '0')}`,
      friendlyName: `${key} appointments`,
      inboundRequestUrl: null,
      statusCallback: null,
      campaigns: [
        {
          sid: `QE${key}${'2'.padStart(30 - key.length, '0')}`,
          status: 'PENDING',
          useCase: 'CUSTOMER_CARE',
          description: 'Appointment reminders',
        },
      ],
    },
  ];
  return { sid, authToken: demoAuthToken(key), balance, incoming, services };
}
