// What `npm test` (test/run.ts) and the apps of the test files agree on, in a
// module of its own so the runner reads it without loading the service.

export const TEST_JWT_SECRET = 'test-secret-for-switchboard-tests-0123456789';
/** Fixed, so databases cloned from the template open the secrets sealed in it. */
export const TEST_APP_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * Held (exclusively) by `npm test` while it builds the template database,
 * which it does while the test processes load; a copy waits for it.
 */
export const TEMPLATE_BUILDING_LOCK = 0x5b7e57;

/**
 * DATABASE_POOL_SIZE of every service a test starts (TEST_POOL_SIZE, default
 * 2): small, so the whole run fits a shared PostgreSQL (README). The bench
 * sets the production default.
 */
export const testPoolSize = (): string => process.env.TEST_POOL_SIZE ?? '2';
