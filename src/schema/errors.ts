import { Type, type Static } from "@sinclair/typebox";

export const ErrorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
});
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

/** One offending field in a `validation_error`: where it is and what is wrong with it. */
export const FieldIssue = Type.Object({ path: Type.String(), reason: Type.String() });
export type FieldIssue = Static<typeof FieldIssue>;

/**
 * What the OAuth endpoints answer with instead of the envelope (RFC 6749 §5.2, RFC 7591 §3.2.2):
 * OAuth clients parse exactly this shape to decide whether to re-register, re-authorize or stop.
 */
export const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });
export type OAuthErrorBody = Static<typeof OAuthErrorBody>;
