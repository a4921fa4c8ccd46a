import { describe, expect, it } from 'vitest';
import { cannotWriteWorkspace } from '../../../roles/session.js';

describe('which sessions need no fresh backup mirror', () => {
  it('a boxed evaluator only: its tools cannot write, nor can its app in the box', () => {
    expect(cannotWriteWorkspace({ role: 'evaluator' })).toBe(true);
    expect(cannotWriteWorkspace({ role: 'evaluator', sandbox: { sandbox: 'auto' } })).toBe(true);
    expect(cannotWriteWorkspace({ role: 'evaluator', sandbox: { sandbox: 'bubblewrap' } })).toBe(true);
  });

  it('not an unboxed evaluator (its app runs as this user), nor a role that writes', () => {
    expect(cannotWriteWorkspace({ role: 'evaluator', sandbox: { sandbox: 'none' } })).toBe(false);
    expect(cannotWriteWorkspace({ role: 'generator' })).toBe(false);
    expect(cannotWriteWorkspace({ role: 'initializer', sandbox: { sandbox: 'bubblewrap' } })).toBe(false);
  });
});
