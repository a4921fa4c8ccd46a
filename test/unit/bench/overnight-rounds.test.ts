import { describe, expect, it } from 'vitest';
import { longestPath, OVERNIGHT_EXAMPLES, roundsWithLanes } from '../../../bench/overnight-examples.js';

describe('the lanes ceiling of an example (bench/overnight-examples.ts)', () => {
  it('measures the longest depends_on chain among the first features', () => {
    const chain = [[], [0], [1], [2]];
    expect(longestPath(chain, 4)).toBe(4);
    expect(longestPath(chain, 2)).toBe(2);
    expect(longestPath([[], [], []], 3)).toBe(1);
    expect(longestPath([], 0)).toBe(0);
  });

  it('counts rounds at a number of lanes: width limits independent features, the chain limits dependent ones', () => {
    const independent = Array.from({ length: 10 }, () => [] as number[]);
    expect(roundsWithLanes(independent, 10, 4)).toBe(3);
    expect(roundsWithLanes(independent, 10, 1)).toBe(10);
    // A chain of 3 beside 5 free features: the chain's head goes first, so 4 lanes need 3 rounds, not 4.
    const mixed = [[], [0], [1], [], [], [], [], []];
    expect(roundsWithLanes(mixed, 8, 4)).toBe(3);
    expect(roundsWithLanes(mixed, 8, 2)).toBe(4);
  });

  it('knows the examples: the todo app needs 4 rounds of 8, the meal planner 5 of its first 12', () => {
    const todo = OVERNIGHT_EXAMPLES.todo;
    expect(roundsWithLanes(todo.dependsOn, 8, 4)).toBe(4);
    const mealPlanner = OVERNIGHT_EXAMPLES['meal-planner'];
    expect(longestPath(mealPlanner.dependsOn, 12)).toBe(5);
    expect(roundsWithLanes(mealPlanner.dependsOn, 12, 4)).toBe(5);
    expect(roundsWithLanes(mealPlanner.dependsOn, 50, 4)).toBeGreaterThanOrEqual(Math.ceil(50 / 4));
  });
});
