/**
 * The actual state of the world (DESIGN §5): one item per EBS volume, keyed by `pk`.
 * Losing it would lose the in-flight operations, so it is protected against every kind of deletion.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../../lambda/adapters/dynamodb/table-schema.js';

export class StateTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      // The schema is owned by the store (lambda/adapters/dynamodb/table-schema.ts); `init` and the sandboxes use it too.
      partitionKey: { name: TABLE_SCHEMA.partitionKey.name, type: dynamodb.AttributeType.STRING },
      // Load follows the cluster's churn and the pass schedule: on-demand, no capacity planning.
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      // The AWS managed key (aws/dynamodb): auditable in CloudTrail, no key policy to maintain.
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      // Epoch seconds after which DynamoDB deletes an item: the store sets it on removed volumes' tombstones only.
      timeToLiveAttribute: TABLE_SCHEMA.ttlAttribute,
    });
  }
}
