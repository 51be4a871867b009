// The Action responses the service produces, checked against @solana/actions-spec by the compiler
// (`npm run typecheck` fails when one is not assignable to the spec's type), and runtime checks of
// the same shapes for real responses. Each runtime check lists every field of its spec type: the
// compiler refuses a check that misses or invents one.
import type * as Spec from '@solana/actions-spec';
import type { Static } from 'typebox';
import type * as Ours from '../../src/domain/approvals/decision-responses.js';
import type * as Schemas from '../../src/http/routes/actions.schemas.js';

/** Compiles only when T is assignable to U. */
type Assignable<T extends U, U> = [T, U];

export type ActionTypesConformToTheSpec = [
  Assignable<Ours.ActionMetadata, Spec.ActionGetResponse>,
  Assignable<Ours.LinkedAction, Spec.LinkedAction>,
  Assignable<Ours.TransactionResponse, Spec.TransactionResponse>,
  Assignable<Ours.TransactionResponse, Spec.ActionPostResponse>,
  Assignable<Ours.PostResponse, Spec.PostResponse>,
  Assignable<Ours.PostResponse, Spec.ActionPostResponse>,
  Assignable<Ours.SignMessageResponse, Spec.SignMessageResponse>,
  Assignable<Ours.SignMessageResponse, Spec.ActionPostResponse>,
  Assignable<Ours.SignMessageResponse['data'], Spec.SignMessageData>,
  Assignable<Ours.CompletedAction, Spec.CompletedAction>,
  Assignable<Ours.CompletedAction, Spec.NextAction>,
  Assignable<Ours.ActionMetadata & { type: 'action' }, Spec.NextAction>,
];

/** The route schemas (what is serialized on the wire) conform too. */
export type ActionSchemasConformToTheSpec = [
  Assignable<Static<typeof Schemas.ActionsJson>, Spec.ActionsJson>,
  Assignable<Static<typeof Schemas.ActionMetadataResponse>, Spec.ActionGetResponse>,
  Assignable<Static<typeof Schemas.TransactionResponse>, Spec.ActionPostResponse>,
  Assignable<Static<typeof Schemas.RejectResponse>, Spec.ActionPostResponse>,
  Assignable<Static<typeof Schemas.CompletedAction>, Spec.NextAction>,
];

/** Problems with a value at a path ("" when it conforms). */
type Check = (value: unknown, path: string) => string[];
/** One check per field of T, optional fields included: no more, no fewer. */
type FieldChecks<T> = { [K in keyof Required<T>]: Check };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const string: Check = (value, path) => (typeof value === 'string' ? [] : [`${path} must be a string`]);
const nonEmpty: Check = (value, path) =>
  typeof value === 'string' && value.length > 0 ? [] : [`${path} must be a non-empty string`];
const boolean: Check = (value, path) => (typeof value === 'boolean' ? [] : [`${path} must be a boolean`]);
const absoluteUrl: Check = (value, path) =>
  typeof value === 'string' && URL.canParse(value) ? [] : [`${path} must be an absolute URL`];
/** Spec hrefs are absolute URLs or paths relative to the Action's origin. */
const href: Check = (value, path) =>
  typeof value === 'string' && (URL.canParse(value) || value.startsWith('/'))
    ? []
    : [`${path} must be an absolute URL or a path`];
const base64: Check = (value, path) =>
  typeof value === 'string' && value.length > 0 && Buffer.from(value, 'base64').toString('base64') === value
    ? []
    : [`${path} must be base64`];
const literal =
  (...values: string[]): Check =>
  (value, path) =>
    values.includes(value as string) ? [] : [`${path} must be one of ${values.join(', ')}`];
const optional =
  (check: Check): Check =>
  (value, path) =>
    value === undefined ? [] : check(value, path);
const absent: Check = (value, path) => (value === undefined ? [] : [`${path} is not used by this service`]);
const arrayOf =
  (check: Check): Check =>
  (value, path) =>
    Array.isArray(value)
      ? value.flatMap((item, i) => check(item, `${path}[${i}]`))
      : [`${path} must be an array`];
const oneOf =
  (...checks: Check[]): Check =>
  (value, path) => {
    const results = checks.map((check) => check(value, path));
    return results.some((problems) => problems.length === 0) ? [] : results.flat();
  };

/** An object with exactly these fields (an unknown field is a problem: the spec type is closed). */
function object<T>(fields: FieldChecks<T>): Check {
  return (value, path) => {
    if (!isObject(value)) return [`${path} must be an object`];
    const known = fields as Record<string, Check>;
    return [
      ...Object.keys(value)
        .filter((key) => !(key in known))
        .map((key) => `${path}.${key} is not a field of the spec type`),
      ...Object.entries(known).flatMap(([key, check]) => check(value[key], `${path}.${key}`)),
    ];
  };
}

const actionError = object<Spec.ActionError>({ message: nonEmpty });
const linkedAction = object<Spec.LinkedAction>({
  type: literal('transaction', 'message', 'post', 'external-link'),
  href,
  label: nonEmpty,
  parameters: absent,
});
const actionFields = {
  icon: absoluteUrl,
  title: nonEmpty,
  description: string,
  label: nonEmpty,
  disabled: optional(boolean),
  error: optional(actionError),
};
const postNextActionLink = object<Spec.PostNextActionLink>({ type: literal('post'), href });
const signMessageData = object<Spec.SignMessageData>({
  domain: nonEmpty,
  address: nonEmpty,
  statement: nonEmpty,
  nonce: nonEmpty,
  issuedAt: (value, path) =>
    typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? [] : [`${path} must be an ISO time`],
  chainId: optional(string),
});

export const checkActionsJson = object<Spec.ActionsJson>({
  rules: arrayOf(object<Spec.ActionRuleObject>({ pathPattern: nonEmpty, apiPath: nonEmpty })),
});
export const checkActionGetResponse = object<Spec.ActionGetResponse>({
  type: optional(literal('action')),
  ...actionFields,
  links: optional(object<NonNullable<Spec.ActionGetResponse['links']>>({ actions: arrayOf(linkedAction) })),
});
export const checkTransactionResponse = object<Spec.TransactionResponse>({
  type: literal('transaction'),
  transaction: base64,
  message: optional(string),
  // Action chaining: approve names where the client posts the signature once sent.
  links: object<NonNullable<Spec.TransactionResponse['links']>>({ next: postNextActionLink }),
});
export const checkPostResponse = object<Spec.PostResponse>({
  type: literal('post'),
  message: optional(string),
  links: absent,
});
export const checkSignMessageResponse = object<Spec.SignMessageResponse>({
  type: literal('message'),
  data: oneOf(nonEmpty, signMessageData),
  state: optional(string),
  message: optional(string),
  links: object<Spec.SignMessageResponse['links']>({ next: postNextActionLink }),
});
export const checkActionPostResponse = oneOf(
  checkTransactionResponse,
  checkPostResponse,
  checkSignMessageResponse,
);
export const checkCompletedAction = object<Spec.CompletedAction>({
  type: literal('completed'),
  ...actionFields,
});
/** An Action error body: the spec's ActionError plus the service's documented envelope fields. */
export const checkActionErrorBody: Check = (value, path) =>
  isObject(value) ? nonEmpty(value.message, `${path}.message`) : [`${path} must be an object`];
