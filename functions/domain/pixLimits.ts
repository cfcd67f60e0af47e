/**
 * PIX limits in centavos: 10.00 to 15,000.00 BRL per code. The service refuses an amount outside
 * them (functions/operations/onRamp/) and so does the simulated PSP (functions/simulators/onRamp.ts),
 * so both read them here.
 */
export const pixMinimum = 10_00n;
export const pixMaximum = 15_000_00n;
