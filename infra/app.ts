/** CDK entry point (cdk.json "app"): `npm run synth`, `npx cdk deploy -c clusterName=…`. */
import { App } from 'aws-cdk-lib';
import { addControllerStack } from './controller-app.js';

const app = new App();
addControllerStack(app);
app.synth();
