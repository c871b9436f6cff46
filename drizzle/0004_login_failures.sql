CREATE TABLE `login_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`identity` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_failures_identity_idx` ON `login_failures` (`identity`,`at`);--> statement-breakpoint
CREATE INDEX `login_failures_at_idx` ON `login_failures` (`at`);