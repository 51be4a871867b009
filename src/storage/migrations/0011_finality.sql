ALTER TABLE "chain_signatures" ADD COLUMN "commitment" text DEFAULT 'confirmed' NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "commitment" text DEFAULT 'confirmed' NOT NULL;--> statement-breakpoint
CREATE INDEX "chain_signatures_unfinalized_idx" ON "chain_signatures" USING btree ("slot") WHERE "chain_signatures"."commitment" = 'confirmed';--> statement-breakpoint
ALTER TABLE "chain_signatures" ADD CONSTRAINT "chain_signatures_commitment_check" CHECK ("chain_signatures"."commitment" in ('confirmed', 'finalized'));--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_commitment_check" CHECK ("transactions"."commitment" in ('confirmed', 'finalized'));