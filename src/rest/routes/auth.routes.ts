import { BOUNDS } from '../../kernel/bounds.js';
import type { Route } from '../route.js';

export const authRoutes: Route[] = [
  {
    operationId: 'login',
    answers: [429],
    methods: ['POST'],
    paths: ['/api/login'],
    tag: 'Authentication',
    summary: 'Login',
    description: 'Exchanges email and password for a Bearer token. Rate limited per IP address and per email.',
    auth: false,
    params: {
      body: {
        email: { ...BOUNDS.auth.email, description: 'Account email' },
        password: { ...BOUNDS.auth.password },
      },
    },
    document:
      'mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { success message token } }',
    response: { field: 'login', shape: 'plain' },
  },
  {
    operationId: 'logout',
    methods: ['POST'],
    paths: ['/api/logout'],
    tag: 'Authentication',
    summary: 'Logout',
    description: 'Revokes the token that made the request.',
    params: {},
    document: 'mutation Logout { logout }',
    response: { field: 'logout', shape: 'envelope', message: 'Logged out successfully.' },
  },
  {
    operationId: 'me',
    methods: ['GET'],
    paths: ['/api/me'],
    tag: 'Authentication',
    summary: 'Signed-in user',
    description: 'The signed-in user, company, role and permissions.',
    params: {},
    document: `query Me { me {
      user { id name email }
      company { id name time_zone: timeZone is_agency: isAgency }
      role { id title is_owner: isOwner }
      permissions
    } }`,
    response: { field: 'me', shape: 'envelope', data: true },
  },
];
