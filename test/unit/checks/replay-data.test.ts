import { describe, expect, it } from 'vitest';
import { RecordedCheck, type RecordedCheckInput } from '../../../checks/format.js';
import { ownTexts, uniqueVariant, withReplayData } from '../../../checks/replay-data.js';

const TEXTBOX = "getByRole('textbox', { name: 'New todo', exact: true })";

function check(input: Pick<RecordedCheckInput, 'actions' | 'expectations'>): RecordedCheck {
  return RecordedCheck.parse({
    featureId: 'F-007',
    version: 1,
    recordedAt: '2026-01-01T00:00:00.000Z',
    origin: { runId: 'r-test', session: 1, reason: 'evaluate' },
    ...input,
  });
}

describe('data of a replay of its own (shared-app sweeps)', () => {
  it('suffixes every text the check types and looks for again, in the typing and in every later mention', () => {
    const edit = check({
      actions: [
        { kind: 'goto', path: '/' },
        { kind: 'fill', target: TEXTBOX, text: 'Clean the garage' },
        { kind: 'press', key: 'Enter', target: TEXTBOX },
        { kind: 'click', target: "getByRole('button', { name: 'Edit Clean the garage', exact: true })" },
        {
          kind: 'fill',
          target: "getByRole('textbox', { name: 'New text for Clean the garage', exact: true })",
          text: 'Clean the garage and the shed',
        },
        {
          kind: 'press',
          key: 'Enter',
          target: "getByRole('textbox', { name: 'New text for Clean the garage' })",
        },
      ],
      expectations: [
        { kind: 'text', text: 'Clean the garage', visible: false },
        { kind: 'text', text: 'Clean the garage and the shed' },
        {
          kind: 'checked',
          target: "getByRole('checkbox', { name: 'Toggle Clean the garage and the shed' })",
          checked: false,
        },
        { kind: 'text', text: '1 item left' },
      ],
    });
    const unique = withReplayData(edit, 'r00a');
    expect(unique.actions).toEqual([
      { kind: 'goto', path: '/' },
      { kind: 'fill', target: TEXTBOX, text: 'Clean the garage r00a' },
      { kind: 'press', key: 'Enter', target: TEXTBOX },
      { kind: 'click', target: "getByRole('button', { name: 'Edit Clean the garage r00a', exact: true })" },
      {
        kind: 'fill',
        target: "getByRole('textbox', { name: 'New text for Clean the garage r00a', exact: true })",
        // The longer typed text is matched first: not "Clean the garage r00a and the shed".
        text: 'Clean the garage and the shed r00a',
      },
      {
        kind: 'press',
        key: 'Enter',
        target: "getByRole('textbox', { name: 'New text for Clean the garage r00a' })",
      },
    ]);
    expect(unique.expectations).toEqual([
      { kind: 'text', text: 'Clean the garage r00a', visible: false },
      { kind: 'text', text: 'Clean the garage and the shed r00a', visible: true },
      {
        kind: 'checked',
        target: "getByRole('checkbox', { name: 'Toggle Clean the garage and the shed r00a' })",
        checked: false,
      },
      // Not a typed text: as recorded.
      { kind: 'text', text: '1 item left', visible: true },
    ]);
    // The recorded check itself is untouched (an app of its own replays it as recorded).
    expect(edit.actions[1]).toMatchObject({ text: 'Clean the garage' });
  });

  it('leaves texts the check never looks for again, and short or letterless ones, as recorded', () => {
    const login = check({
      actions: [
        { kind: 'goto', path: '/login' },
        { kind: 'fill', target: "getByLabel('Password')", text: 'hunter2-secret' },
        { kind: 'fill', target: "getByLabel('Quantity')", text: '12' },
        { kind: 'fill', target: "getByLabel('Code')", text: 'ab' },
        { kind: 'click', target: "getByRole('button', { name: 'Sign in' })" },
      ],
      expectations: [
        { kind: 'text', text: '12 in the basket' },
        { kind: 'value', target: "getByLabel('Code')", value: 'ab' },
      ],
    });
    expect(withReplayData(login, 'r001')).toBe(login);
  });

  it('makes a text typed twice unique alike (a user name at sign-up and log-in), never a password', () => {
    const USER = "getByRole('textbox', { name: 'Username', exact: true })";
    const PASSWORD = "getByLabel('Password')";
    const account = check({
      actions: [
        { kind: 'goto', path: '/signup' },
        { kind: 'fill', target: USER, text: 'ann-k3f9' },
        { kind: 'fill', target: PASSWORD, text: 'correct horse 1' },
        { kind: 'click', target: "getByRole('button', { name: 'Sign up', exact: true })" },
        { kind: 'click', target: "getByRole('button', { name: 'Log out', exact: true })" },
        { kind: 'fill', target: USER, text: 'ann-k3f9' },
        { kind: 'fill', target: PASSWORD, text: 'correct horse 1' },
        { kind: 'click', target: "getByRole('button', { name: 'Log in', exact: true })" },
      ],
      expectations: [{ kind: 'text', text: 'Signed in as ann-k3f9' }],
    });
    expect(ownTexts(account)).toEqual(['ann-k3f9']);
    const unique = withReplayData(account, 'r001');
    expect(unique.actions.filter((action) => action.kind === 'fill')).toEqual([
      { kind: 'fill', target: USER, text: 'ann-k3f9r001' },
      { kind: 'fill', target: PASSWORD, text: 'correct horse 1' },
      { kind: 'fill', target: USER, text: 'ann-k3f9r001' },
      { kind: 'fill', target: PASSWORD, text: 'correct horse 1' },
    ]);
    expect(unique.expectations).toEqual([{ kind: 'text', text: 'Signed in as ann-k3f9r001', visible: true }]);
  });

  it('makes a name typed once into a field for who someone is unique (the app refuses it the next time)', () => {
    const second = check({
      actions: [
        { kind: 'goto', path: '/signup' },
        { kind: 'fill', target: "getByRole('textbox', { name: 'Username', exact: true })", text: 'bob-k3f9' },
        { kind: 'fill', target: "getByLabel('E-mail')", text: 'bob@example.com' },
        { kind: 'fill', target: "getByLabel('Search')", text: 'stamps' },
        { kind: 'click', target: "getByRole('button', { name: 'Create account', exact: true })" },
      ],
      expectations: [{ kind: 'text', text: 'Welcome' }],
    });
    expect(ownTexts(second)).toEqual(['bob@example.com', 'bob-k3f9']);
    expect(withReplayData(second, 'r002').actions.slice(1, 4)).toMatchObject([
      { text: 'bob-k3f9r002' },
      { text: 'bobr002@example.com' },
      { text: 'stamps' },
    ]);
  });

  it('keeps a single word free of spaces and an e-mail address valid', () => {
    expect(uniqueVariant('Buy milk', 'r001')).toBe('Buy milk r001');
    expect(uniqueVariant('alice', 'r001')).toBe('alicer001');
    expect(uniqueVariant('ann@example.com', 'r001')).toBe('annr001@example.com');
  });
});
