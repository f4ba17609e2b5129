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
