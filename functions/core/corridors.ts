/**
 * The corridors this build can pay out through, published by GET /capabilities.
 * Empty until the payments issue adds the corridor catalogue with its simulated rails:
 * an honest empty list, because no payment can be sent yet (the `payments` feature is planned).
 */
export interface Corridor {
  from: string;
  to: string;
  destinationCountry: string;
  ownedRail: boolean;
  instant: boolean;
}

export const corridors: readonly Corridor[] = [];
