// The vault program's fixed limits, stated once for the service. The sizes are the IDL's arrays
// (VaultConfig.whitelist is [pubkey; 20], VaultConfig.name is [u8; 50]); the window is the program's
// rule. test/conformance/program-limits.test.ts holds the sizes to program/vault-program.idl.json.

/** Whitelist entries a vault holds at most (VaultConfig.whitelist). */
export const MAX_WHITELIST = 20;
/** UTF-8 bytes of a vault name at most (VaultConfig.name). */
export const MAX_NAME_BYTES = 50;
/** A spending window lasts this long from its `last_reset` (unix seconds). */
export const WINDOW_SECONDS = 86_400n;
