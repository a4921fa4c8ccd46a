import { describe, expect, it } from 'vitest';
import { onCi, requirement } from '../requirements.js';

describe('suite requirements (bubblewrap, pids cgroup)', () => {
  it('knows CI from CI or NIGHTSHIFT_CI', () => {
    expect(onCi({ CI: 'true' })).toBe(true);
    expect(onCi({ NIGHTSHIFT_CI: '1' })).toBe(true);
    expect(onCi({ CI: 'false' })).toBe(false);
    expect(onCi({ CI: '0', NIGHTSHIFT_CI: '' })).toBe(false);
    expect(onCi({})).toBe(false);
  });

  it('fails a suite on CI when what it needs is missing, naming it and why', () => {
    const missing = requirement('bubblewrap', false, 'bwrap not found on PATH', { NIGHTSHIFT_CI: '1' });
    expect(missing.skip).toBe(false);
    expect(() => missing.check()).toThrow(
      'bubblewrap is required on CI and missing: bwrap not found on PATH',
    );
  });

  it('skips it on a developer machine, and runs it wherever the requirement is met', () => {
    const local = requirement('a pids cgroup', false, 'no controller', {});
    expect(local.skip).toBe(true);
    expect(() => local.check()).not.toThrow();
    const met = requirement('bubblewrap', true, '', { CI: 'true' });
    expect(met.skip).toBe(false);
    expect(() => met.check()).not.toThrow();
  });
});
