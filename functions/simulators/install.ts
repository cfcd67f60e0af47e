import { simulateChainSender, simulateGasOracle } from '#providers/chain.ts';
import { simulateCustodyProvider } from '#providers/custody.ts';
import { simulateFxProvider } from '#providers/fx.ts';
import { simulateIssuerProvider } from '#providers/issuers.ts';
import { simulateOffRampProvider } from '#providers/offRamp.ts';
import { simulateOnRampProvider } from '#providers/onRamp.ts';
import { simulatePayoutProvider } from '#providers/payout.ts';
import { SimulatedChain, SimulatedGasOracle } from './chain.ts';
import { SimulatedCustody } from './custody.ts';
import { SimulatedFx } from './fx.ts';
import { SimulatedIssuers } from './issuers.ts';
import { SimulatedOffRamps } from './offRamp.ts';
import { SimulatedOnRamps } from './onRamp.ts';
import { SimulatedPayouts } from './payout.ts';

/**
 * The simulated stage's wiring (docs/decisions/121): importing this module registers every port's
 * simulator, which then answers where nothing real is installed, in `simulated` only
 * (functions/platform/providerPorts.ts). Nothing in functions/ imports it: the local runtime
 * (lib/local/service.ts) does, and the simulated stage's Lambda bundles have it injected
 * (lib/build/lambdaBundles.ts); the sandbox and production bundles hold no simulator.
 */
simulatePayoutProvider(() => new SimulatedPayouts());
simulateChainSender(() => new SimulatedChain());
simulateGasOracle(() => new SimulatedGasOracle());
simulateCustodyProvider(() => new SimulatedCustody());
simulateFxProvider(() => new SimulatedFx());
simulateIssuerProvider(() => new SimulatedIssuers());
simulateOnRampProvider(() => new SimulatedOnRamps());
simulateOffRampProvider(() => new SimulatedOffRamps());
