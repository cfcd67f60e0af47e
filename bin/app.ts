import { App } from 'aws-cdk-lib';
import { bundleLambdas } from '../lib/build/lambdaBundles.ts';
import { buildPaymentsApp } from '../lib/aws/app.ts';

// `cdk synth|deploy -c environment=simulated|sandbox|production` (cdk.json runs this with tsx).
// Every Lambda is bundled first, in one esbuild call; the stacks only point at the bundles.
const app = new App();
buildPaymentsApp(app, bundleLambdas());
app.synth();
