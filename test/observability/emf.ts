/**
 * Reading CloudWatch embedded-metric-format documents the way CloudWatch does: every JSON line of
 * stdout with an `_aws` directive; each metric named there carries the dimensions its directive
 * lists, with their values taken from the same document.
 */
export interface EmittedMetric {
  namespace: string;
  name: string;
  unit: string;
  value: unknown;
  dimensions: Record<string, unknown>;
}

interface EmfDocument {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

export function readEmf(stdout: string): EmittedMetric[] {
  const documents = stdout
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as EmfDocument);
  return documents.flatMap((doc) =>
    doc._aws.CloudWatchMetrics.flatMap((directive) => {
      const dimensions = Object.fromEntries(directive.Dimensions.flat().map((key) => [key, doc[key]]));
      return directive.Metrics.map((metric) => ({
        namespace: directive.Namespace,
        name: metric.Name,
        unit: metric.Unit,
        value: doc[metric.Name],
        dimensions,
      }));
    }),
  );
}
