/** The graph build's time budget (NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS): a positive whole number of ms, else the start stops with one line naming it. */
import { describe, expect, it } from 'vitest';
import { ServiceConfigError, serviceConfig } from '../../../service/config.js';

describe('NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS', () => {
  it('defaults to 30 s and takes a positive whole number of ms', () => {
    expect(serviceConfig({}, {}).graphBuildTimeoutMs).toBe(30_000);
    expect(serviceConfig({}, { NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS: '5000' }).graphBuildTimeoutMs).toBe(5000);
  });

  it('refuses anything else with one line naming the variable', () => {
    for (const bad of ['0', '-1', '1.5', 'soon']) {
      expect(() => serviceConfig({}, { NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS: bad })).toThrow(ServiceConfigError);
      expect(() => serviceConfig({}, { NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS: bad })).toThrow(
        `NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS must be a positive whole number of milliseconds, not ${JSON.stringify(bad)}`,
      );
    }
  });
});
