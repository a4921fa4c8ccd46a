import { describe, expect, it } from 'vitest';
import { mentionedPath } from '../../../checks/recorder-place.js';

const BASE = 'http://127.0.0.1:4100/';
const at = (path: string) => new URL(path, BASE).href;

describe('the URL path a check expects', () => {
  it('is the page path when the evidence names it, on its own or as the whole URL', () => {
    expect(mentionedPath(at('/recipes'), BASE, ['The address is now /recipes.'], [])).toEqual({
      kind: 'url',
      path: '/recipes',
    });
    expect(mentionedPath(at('/recipes'), BASE, [`landed on ${at('/recipes')}`], [])).toEqual({
      kind: 'url',
      path: '/recipes',
    });
    expect(mentionedPath(at('/login?next=%2Frecipes'), BASE, ['at "/login?next=%2Frecipes"'], [])).toEqual({
      kind: 'url',
      path: '/login?next=%2Frecipes',
    });
  });

  it('is nothing when the evidence does not name that path on its own', () => {
    expect(mentionedPath(at('/recipes'), BASE, ['The "My recipes" page opens'], [])).toBeUndefined();
    expect(mentionedPath(at('/recipes'), BASE, ['GET /api/recipes answered 200'], [])).toBeUndefined();
    expect(mentionedPath(at('/recipes'), BASE, ['The address is now /recipes/new'], [])).toBeUndefined();
  });

  it("is nothing for the root or a path that differs between replays (ids, the check's own typed data)", () => {
    expect(mentionedPath(at('/'), BASE, ['The address is now /.'], [])).toBeUndefined();
    expect(mentionedPath(at('/recipes/3'), BASE, ['The address is now /recipes/3.'], [])).toBeUndefined();
    expect(mentionedPath(at('/u/alice'), BASE, ['The address is now /u/alice.'], ['alice'])).toBeUndefined();
    expect(mentionedPath('http://other.example/recipes', BASE, ['/recipes'], [])).toBeUndefined();
  });
});
