import { describe, expect, it } from 'vitest';
import { dashboardRows, dashboardText, judge } from '../../bench/dashboard.ts';

describe('the bench dashboard', () => {
  it('judges a ceiling and a floor, the goal itself counting as met', () => {
    expect(judge(1.2, 1.2, 'atMost')).toEqual({ value: 1.2, ratio: 1, met: true, measured: true });
    expect(judge(1.26, 1.2, 'atMost')).toMatchObject({ ratio: 1.05, met: false });
    expect(judge(19.4, 40, 'atLeast')).toMatchObject({ ratio: 0.485, met: false });
    expect(judge(40, 40, 'atLeast')).toMatchObject({ met: true });
  });

  it('never passes what was not measured', () => {
    for (const value of [undefined, null, Number.NaN]) expect(judge(value, 250, 'atMost')).toEqual({ value: null, ratio: null, met: null, measured: false });
  });

  it('shows every row of a partial run, the sections left out as not measured', () => {
    const rows = dashboardRows({ webhooks: { latency: { committedToFirstAttemptMs: { p50: 212 } } }, overhead: { meP50OverBareP50: 1.26 } });
    expect(rows.length).toBeGreaterThanOrEqual(13);
    expect(rows.find((row) => row.section === 'webhooks')).toMatchObject({ value: 212, met: true });
    expect(rows.find((row) => row.figure.startsWith('GET /me over HTTP'))).toMatchObject({ value: 1.26, met: false });
    expect(rows.filter((row) => row.section === 'payments').every((row) => !row.measured && row.met === null)).toBe(true);
    expect(dashboardText(rows)).toContain('not measured');
  });

  it('reads the Lambda figures with or without the GetItem-only baseline', () => {
    const bundles = [
      { entry: 'a', bytes: 500 * 1000, coldImportMsMedian: 60 },
      { entry: 'b', bytes: 700 * 1000, coldImportMsMedian: 90 },
      { entry: 'c', bytes: 800 * 1000, coldImportMsMedian: 75 },
    ];
    const without = dashboardRows({ lambdas: bundles });
    expect(without.find((row) => row.figure === 'Lambda bundle, median')).toMatchObject({ value: 700, met: false });
    expect(without.find((row) => row.figure === 'Lambda bundle, largest')).toMatchObject({ value: 800, met: false });
    expect(without.find((row) => row.figure.startsWith('Cold import'))).toMatchObject({ measured: false, met: null });
    const withBaseline = dashboardRows({ lambdas: { bundles, getItemOnly: { bytes: 342 * 1000, coldImportMsMedian: 60 } } });
    expect(withBaseline.find((row) => row.figure.startsWith('Cold import'))).toMatchObject({ value: 1.5, met: true });
  });

  it('reads calls per request to a tenth: background calls of the local runtime do not fail it', () => {
    expect(dashboardRows({ dynamoCallsPerRequest: { me: 2.01 } }).find((row) => row.figure === 'DynamoDB calls per GET /me')).toMatchObject({ value: 2, met: true });
    expect(dashboardRows({ dynamoCallsPerRequest: { me: 3 } }).find((row) => row.figure === 'DynamoDB calls per GET /me')).toMatchObject({ met: false });
  });

  it('takes the worst of the statement runs, and none when one is missing', () => {
    const statements = { json: { p99: 900 }, csv: { p99: 2100 }, jsonWithMorePaymentsOutside: { p99: 950 } };
    expect(dashboardRows({ statements }).find((row) => row.section === 'statements')).toMatchObject({ value: 2100, met: false });
    expect(dashboardRows({ statements: { json: { p99: 900 } } }).find((row) => row.section === 'statements')).toMatchObject({ measured: false });
  });
});
