import { z } from 'zod';
import { Question } from '../handoff/questions.js';
import { NotificationEvent, type Webhook } from './config.js';
import { WindowSummary } from './events.js';
import {
  FeatureSummary,
  knownCostUsd,
  PausedReason,
  type RunRecord,
  RunStatus,
  runName,
} from './run/run-state.js';

/** One regression as notified: the feature and what the evaluator found. */
export const NotifiedRegression = z.object({ featureId: z.string(), issues: z.array(z.string()) });
export type NotifiedRegression = z.infer<typeof NotifiedRegression>;

/** The body of a generic JSON webhook. */
export const WebhookPayload = z.object({
  type: NotificationEvent,
  runId: z.string(),
  /** What people call the run (`--name`, else the spec's title). */
  name: z.string(),
  /** The spec's file name. */
  spec: z.string(),
  status: RunStatus,
  reason: PausedReason.nullable(),
  detail: z.string().nullable(),
  features: FeatureSummary,
  /** The run's known cost so far (USD); null when no session has a known price. */
  costUsd: z.number().nullable(),
  /** Sessions whose model had no known price (not in costUsd). */
  costUnknownSessions: z.number().int().optional(),
  summary: WindowSummary.optional(),
  regressions: z.array(NotifiedRegression).optional(),
  /** `question.asked` / `question.answered`: the question (with its answer once answered). */
  question: Question.optional(),
  at: z.string(),
});
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** The body of a Slack-compatible webhook (incoming webhooks, and the many tools that accept the same shape). */
export const SlackPayload = z.object({ text: z.string().min(1) });
export type SlackPayload = z.infer<typeof SlackPayload>;

/** Something to tell the webhooks. */
export type Notification =
  | { type: 'run.finished' | 'run.failed' | 'run.paused'; run: RunRecord; at: string }
  | { type: 'feature.regressed'; run: RunRecord; regressions: NotifiedRegression[]; at: string }
  | { type: 'nightly.summary'; run: RunRecord; summary: WindowSummary; at: string }
  | { type: 'question.asked' | 'question.answered'; run: RunRecord; question: Question; at: string };

/** The notification a status change calls for, if any (`done` and `cancelled` are "finished"). */
export function statusNotificationType(
  run: RunRecord,
): 'run.finished' | 'run.failed' | 'run.paused' | undefined {
  if (run.status === 'done' || run.status === 'incomplete' || run.status === 'cancelled')
    return 'run.finished';
  if (run.status === 'failed') return 'run.failed';
  if (run.status === 'paused') return 'run.paused';
  return undefined;
}

/** True when the webhook wants this kind of notification (`events` omitted = all). */
export function wants(webhook: Webhook, type: NotificationEvent): boolean {
  return !webhook.events || webhook.events.includes(type);
}

/** The JSON body for a webhook of `format`. */
export function formatNotification(
  notification: Notification,
  format: Webhook['format'],
): WebhookPayload | SlackPayload {
  return format === 'slack'
    ? SlackPayload.parse({ text: slackText(notification) })
    : jsonPayload(notification);
}

/** The generic JSON body (validated). */
export function jsonPayload(notification: Notification): WebhookPayload {
  const { run } = notification;
  return WebhookPayload.parse({
    type: notification.type,
    runId: run.id,
    name: runName(run),
    spec: run.spec.name,
    status: run.status,
    reason: run.pausedReason,
    detail: run.detail,
    features: run.features,
    costUsd: knownCostUsd(run.counters),
    costUnknownSessions: run.counters.costUnknownSessions,
    summary: notification.type === 'nightly.summary' ? notification.summary : undefined,
    regressions: notification.type === 'feature.regressed' ? notification.regressions : undefined,
    question: 'question' in notification ? notification.question : undefined,
    at: notification.at,
  });
}

/** A one-paragraph, human-readable message; text from models or users is escaped for Slack's mrkdwn. */
export function slackText(notification: Notification): string {
  const { run } = notification;
  const name = `nightshift run ${run.id} "${escapeSlack(runName(run))}"`;
  const known = knownCostUsd(run.counters);
  const progress = `${run.features.passing}/${run.features.total} features passing, ${known === null ? 'cost unknown (models without a price)' : `${usd(known)} spent`}`;
  const detail = run.detail ? `: ${escapeSlack(run.detail)}` : '';
  switch (notification.type) {
    case 'run.finished':
      return `${name} finished (${run.status})${detail}. ${cap(progress)}.`;
    case 'run.failed':
      return `${name} failed${detail}. ${cap(progress)}. Fix the cause, then \`nightshift resume ${run.id}\`.`;
    case 'run.paused':
      return `${name} paused (${run.pausedReason ?? 'user'})${detail}. ${cap(progress)}.`;
    case 'feature.regressed': {
      const list = notification.regressions
        .map(
          ({ featureId, issues }) =>
            `${featureId}${issues.length ? ` (${escapeSlack(issues.slice(0, 2).join('; '))})` : ''}`,
        )
        .join(', ');
      const noun =
        notification.regressions.length === 1
          ? 'feature that passed before now fails'
          : 'features that passed before now fail';
      return `${name}: regression — ${notification.regressions.length} ${noun}: ${list}. ${cap(progress)}.`;
    }
    case 'question.asked':
      return questionAskedText(name, run.id, notification.question);
    case 'question.answered': {
      const q = notification.question;
      const who =
        q.answeredBy === 'timeout' ? 'nobody answered in time' : `answered from the ${q.answeredBy}`;
      return `${name}: ${q.id} (${q.featureId}) ${who}: "${escapeSlack(q.answer ?? '')}".`;
    }
    case 'nightly.summary': {
      const s = notification.summary;
      return (
        `${name} summary of the window since ${s.since}: ${listed('newly passing', s.newlyPassing)}, ` +
        `${listed('newly failing', s.newlyFailing)}, ${listedBlocked(s)}; ` +
        `${s.passing}/${s.total} features passing; ${usd(s.costUsd)} spent in the window. Status: ${run.status}` +
        `${run.pausedReason ? ` (${run.pausedReason})` : ''}.`
      );
    }
  }
}

/** A question as a person reads it in Slack, with the command that answers it. */
function questionAskedText(name: string, runId: string, question: Question): string {
  const options = question.options.length
    ? ` Options: ${question.options.map((option) => escapeSlack(option)).join(' | ')}.`
    : '';
  return (
    `${name}: ${question.id} (${question.featureId}) asks: "${escapeSlack(question.question)}".${options} ` +
    `The feature waits; answer with \`nightshift answer ${runId} ${question.id} "…"\` or on the dashboard.`
  );
}

/** Slack treats `&`, `<` and `>` as markup (links, @channel); these three must be escaped. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function listed(label: string, ids: readonly string[]): string {
  if (ids.length === 0) return `0 ${label}`;
  const shown = ids.slice(0, 10).join(', ');
  return `${ids.length} ${label} (${shown}${ids.length > 10 ? ', …' : ''})`;
}

/** `2 blocked (F-003: 3 failed evaluations; F-007: …)`, the reasons escaped for Slack. */
function listedBlocked(summary: Pick<WindowSummary, 'blocked' | 'blockedReasons'>): string {
  if (summary.blockedReasons.length === 0) return listed('blocked', summary.blocked);
  const shown = summary.blockedReasons
    .slice(0, 5)
    .map(({ featureId, reason }) => `${featureId}: ${escapeSlack(reason)}`)
    .join('; ');
  return `${summary.blocked.length} blocked (${shown}${summary.blockedReasons.length > 5 ? '; …' : ''})`;
}

function usd(value: number): string {
  return `$${value.toFixed(2)}`;
}

function cap(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
