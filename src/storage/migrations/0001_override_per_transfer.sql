DROP INDEX "overrides_vault_nonce_idx";--> statement-breakpoint
ALTER TABLE "overrides" ADD COLUMN "transfer_signature" text;--> statement-breakpoint
ALTER TABLE "overrides" ADD COLUMN "address_signature" text;--> statement-breakpoint
ALTER TABLE "overrides" ADD COLUMN "chain_nonce" numeric(20, 0);--> statement-breakpoint
-- Existing overrides: the blocked transfer that asked for each, and whether it exists on chain.
UPDATE "overrides" o SET "transfer_signature" = (
  SELECT t."signature" FROM "transactions" t
  WHERE t."override_id" = o."id" AND t."status" = 'blocked'
  ORDER BY t."timestamp", t."id" LIMIT 1);--> statement-breakpoint
UPDATE "overrides" o SET "chain_nonce" = o."nonce"
WHERE o."status" IN ('approved', 'executed') OR EXISTS (
  SELECT 1 FROM "chain_events" e JOIN "vaults" v ON v."address" = e."vault_address"
  WHERE v."id" = o."vault_id" AND e."name" = 'OverrideCreated' AND e."data"->>'nonce' = o."nonce"::text);--> statement-breakpoint
CREATE UNIQUE INDEX "overrides_vault_nonce_signature_idx" ON "overrides" USING btree ("vault_id","nonce","address_signature") WHERE "overrides"."address_signature" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "overrides_transfer_signature_idx" ON "overrides" USING btree ("transfer_signature") WHERE "overrides"."transfer_signature" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "overrides_vault_chain_nonce_idx" ON "overrides" USING btree ("vault_id","chain_nonce") WHERE "overrides"."chain_nonce" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "overrides_vault_nonce_idx" ON "overrides" USING btree ("vault_id","nonce") WHERE "overrides"."address_signature" is null;