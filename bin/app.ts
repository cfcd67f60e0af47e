import { App } from 'aws-cdk-lib';
import { bundleFlavorOf, bundleLambdas } from '../lib/build/lambdaBundles.ts';
import { buildPaymentsApp } from '../lib/aws/app.ts';
import { lambdaEntries } from '../lib/aws/handlers.ts';
import { environmentFromContext } from '../lib/aws/environment.ts';

// `cdk synth|deploy -c environment=simulated|sandbox|production` (cdk.json runs this with tsx).
// Every Lambda is bundled first, in one esbuild call; the stacks only point at the bundles. The
// simulated stage's bundles hold the provider simulators, the others none (docs/decisions/121).
const app = new App();
buildPaymentsApp(app, bundleLambdas(lambdaEntries(), { flavor: bundleFlavorOf(environmentFromContext(app)) }));
app.synth();
