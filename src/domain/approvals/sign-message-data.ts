// Solana Actions 2.4 SignMessageData: what a wallet signs to reject an override through the
// sign-message flow. The schema is the one declaration; the client and the pages take its type.
import { type Static, type TString, Type } from 'typebox';
import { Address } from '../../lib/json-schema.js';

/** The fields, with the address schema of the use (the response copy checks no formats). */
export const signMessageFields = (address: TString) =>
  Type.Object(
    {
      domain: Type.String({ maxLength: 255 }),
      address,
      statement: Type.String({ maxLength: 1000 }),
      nonce: Type.String({ maxLength: 64 }),
      issuedAt: Type.String({ maxLength: 64 }),
      chainId: Type.Optional(Type.String({ maxLength: 100 })),
    },
    { additionalProperties: false, description: 'Actions spec SignMessageData' },
  );

export const SignMessageData = signMessageFields(Address());
export type SignMessageData = Static<typeof SignMessageData>;
