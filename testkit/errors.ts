import type { ServerResponse } from 'node:http';
import { anthropicErrorBody } from './anthropic-format.js';
import { openAIErrorBody } from './openai-format.js';
import type { Fault, ServerQuirks, WireFormat } from './types.js';

/** A failure sent as an HTTP error: status, message, headers, OpenAI error code and type. */
export interface ErrorReply {
  status: number;
  message: string;
  headers?: Record<string, string>;
  code?: string | null;
  /** OpenAI error `type` when it does not follow from the status. */
  type?: string;
}

const retryAfter = (seconds: number | undefined): Record<string, string> =>
  seconds === undefined ? {} : { 'retry-after': String(seconds) };

/** The errors whose wording differs between the two APIs, as each documents them. */
function providerError(fault: Fault, format: WireFormat, model: string): ErrorReply | undefined {
  const anthropic = format === 'anthropic';
  switch (fault.kind) {
    case 'overloaded':
      return anthropic
        ? { status: 529, message: 'Overloaded', headers: retryAfter(fault.retryAfterSeconds) }
        : {
            status: 503,
            message: 'The server is overloaded or not ready yet.',
            headers: retryAfter(fault.retryAfterSeconds),
            code: null,
          };
    case 'quota':
      return anthropic
        ? {
            status: 400,
            message:
              'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
          }
        : {
            status: 429,
            message:
              'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
            code: 'insufficient_quota',
            type: 'insufficient_quota',
          };
    case 'model_not_found':
      return anthropic
        ? { status: 404, message: `model: ${model}` }
        : {
            status: 404,
            message: `The model \`${model}\` does not exist or you do not have access to it.`,
            code: 'model_not_found',
          };
    default:
      return undefined;
  }
}

/** The HTTP error a fault stands for, in the request's wire format; undefined for content and timing faults. */
export function errorFor(fault: Fault, format: WireFormat, model: string): ErrorReply | undefined {
  const specific = providerError(fault, format, model);
  if (specific) return specific;
  switch (fault.kind) {
    case 'rate_limit':
      return {
        status: 429,
        message: 'Rate limit reached for requests (scripted fault)',
        headers: { 'retry-after': String(fault.retryAfterSeconds ?? 1) },
        code: 'rate_limit_exceeded',
      };
    case 'server_error': {
      const status = fault.status ?? 500;
      return {
        status,
        message: fault.message ?? `Scripted server error ${status}`,
        code: null,
        headers: retryAfter(fault.retryAfterSeconds),
      };
    }
    case 'auth_error':
      return { status: 401, message: 'invalid x-api-key (scripted fault)', code: 'invalid_api_key' };
    case 'context_overflow':
      return {
        status: 400,
        message:
          "prompt is too long: 210000 tokens > 200000 maximum. This model's maximum context length is 200000 tokens.",
        code: 'context_length_exceeded',
      };
    default:
      return undefined;
  }
}

/** A text-only model (quirk) answers any request with an image the way Ollama does: 400. */
export function imagesRefused(quirks: ServerQuirks, raw: string): ErrorReply | undefined {
  if (!quirks.textOnly || !/"type":"(image|image_url)"/.test(raw)) return undefined;
  return { status: 400, message: 'this model does not support image input', code: null };
}

/** Sends an error body in the request's wire format. */
export function sendError(
  res: ServerResponse,
  format: WireFormat,
  error: ErrorReply,
  sendJson: (res: ServerResponse, status: number, body: object, headers?: Record<string, string>) => void,
): void {
  const body =
    format === 'anthropic'
      ? anthropicErrorBody(error.status, error.message)
      : openAIErrorBody(error.status, error.message, error.code ?? null, error.type);
  sendJson(res, error.status, body, error.headers);
}
