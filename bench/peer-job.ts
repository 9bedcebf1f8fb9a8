/** A job of the bench's peer (bench/peer-worker.ts): one delivery, its payload carried in the job. */
export interface PeerJob {
  deliveryId: string;
  event: string;
  url: string;
  secret: string;
  payload: string;
}

export const PEER_TASK = 'deliver_webhook';
