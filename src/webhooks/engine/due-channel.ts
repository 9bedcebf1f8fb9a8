/**
 * The PostgreSQL channel that wakes the delivery pumps (pump.ts): notified by a commit that wrote deliveries
 * (outbox.ts) and by a recorded result that freed a slot of an endpoint with due work waiting (settle.ts).
 */
export const DUE_CHANNEL = 'webhook_due';
