-- PostgreSQL's 00019 adds the check a command's writes make when they run
-- as one multi-statement query without the case's lock. SQLite runs a
-- command's writes one by one in its transaction, which checks the case
-- row's update count itself: nothing to do here.
SELECT 1;
