CREATE TABLE `retired_slugs` (
	`owner` text NOT NULL,
	`kind` text NOT NULL,
	`slug` text NOT NULL,
	`last_version` integer NOT NULL,
	PRIMARY KEY(`owner`, `kind`, `slug`)
);
--> statement-breakpoint
ALTER TABLE `styles` ADD `last_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `styles` SET `last_version` = COALESCE((SELECT MAX(`version`) FROM `style_versions` WHERE `style_versions`.`style_id` = `styles`.`id`), 0);
