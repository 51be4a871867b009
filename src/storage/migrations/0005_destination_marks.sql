CREATE TABLE "destination_metrics_dirty" (
	"vault_key" text NOT NULL,
	"day" date NOT NULL,
	"destination" text NOT NULL,
	CONSTRAINT "destination_metrics_dirty_vault_key_day_destination_pk" PRIMARY KEY("vault_key","day","destination")
);
--> statement-breakpoint
DROP INDEX "transactions_destination_idx";--> statement-breakpoint
CREATE INDEX "transactions_destination_timestamp_idx" ON "transactions" USING btree ("destination","timestamp");--> statement-breakpoint
-- Days marked before this version recomputed every destination of the day: mark those destinations.
INSERT INTO "destination_metrics_dirty" ("vault_key", "day", "destination")
SELECT DISTINCT m."vault_key", m."day", t."destination"
FROM "daily_metrics_dirty" m
JOIN "transactions" t ON t."status" = 'executed'
  AND t."timestamp" >= (m."day"::timestamp AT TIME ZONE 'UTC')
  AND t."timestamp" < ((m."day" + 1)::timestamp AT TIME ZONE 'UTC')
  AND (m."vault_key" = '*' OR t."vault_id"::text = m."vault_key")
UNION
SELECT d."vault_key", d."day", d."destination"
FROM "daily_destination_metrics" d
JOIN "daily_metrics_dirty" m ON m."vault_key" = d."vault_key" AND m."day" = d."day"
ON CONFLICT DO NOTHING;
