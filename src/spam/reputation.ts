// Where caller-ID reputation comes from. The product talks to a source
// through this adapter; the simulator source answers offline.

export interface ReputationResult {
  carriersChecked: string[];
  flaggedBy: string[];
}

export interface ReputationSource {
  check(pnumber: string): Promise<ReputationResult>;
}

export const CARRIERS = ['AT&T', 'T-Mobile', 'Verizon'];

/**
 * The simulator: every carrier is checked, and the number's last digit decides
 * how many flag it: digit mod 4 carriers, in the order of CARRIERS
 * (…0 and …4 clean everywhere, …3 and …7 flagged by all three).
 */
export class SimulatedReputationSource implements ReputationSource {
  async check(pnumber: string): Promise<ReputationResult> {
    const digits = pnumber.replace(/\D/g, '');
    const last = Number(digits.at(-1) ?? 0);
    return { carriersChecked: [...CARRIERS], flaggedBy: CARRIERS.slice(0, last % 4) };
  }
}
