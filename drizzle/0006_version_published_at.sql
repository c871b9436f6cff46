ALTER TABLE `tileset_versions` ADD `published_at` integer;--> statement-breakpoint
-- Versions made before this column was kept were all readable at their versioned URLs; they stay so
-- (a URL already handed out must not start answering 404). Only versions made from now on wait for
-- their first publish.
UPDATE `tileset_versions` SET `published_at` = `updated_at` WHERE `state` = 'ready';
