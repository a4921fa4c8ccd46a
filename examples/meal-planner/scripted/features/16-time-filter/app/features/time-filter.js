// Hook on /recipes: "Ready in" keeps the recipes that take at most 15, 30 or 60 minutes.
import { selectField } from '../forms.js';
import { recipeListOptions } from './my-recipes.js';

const LIMITS = [
  ['', 'Any time'],
  ['15', '15 minutes or less'],
  ['30', '30 minutes or less'],
  ['60', '60 minutes or less'],
];

export function before(ctx) {
  if (ctx.method !== 'GET') return;
  const options = recipeListOptions(ctx);
  const chosen = LIMITS.some(([value]) => value === ctx.query.get('time')) ? ctx.query.get('time') : '';
  options.controls.push({ position: 30, markup: selectField('Ready in', 'time', LIMITS, chosen) });
  if (!chosen) return;
  options.where.push('minutes <= ?');
  options.params.push(Number(chosen));
}
