-- Lifetime and calendar badges: total distance, big weeks and months, daily streaks, total climb
-- and number of runs. Only runs with sport "running" count. Days, weeks and months are LOCAL
-- (run.local_date): a run at 23:50 local belongs to that local day even when it is the next day in UTC.
return {
  name = "lifetime",
  version = "1.0.0",
  description = "Lifetime distance, ISO-week and month distance, daily streaks, Everest of climb, run counts.",
  badges = {
    { id = "lifetime-100k", name = "Century", tiers = { "earned" }, image = "lifetime-100k.png",
      information = "100 km run in total, every run counted." },
    { id = "lifetime-500k", name = "Five Hundred", tiers = { "earned" }, image = "lifetime-500k.png",
      information = "500 km in total: about London to Edinburgh." },
    { id = "lifetime-1000k", name = "Thousand Club", tiers = { "earned" }, image = "lifetime-1000k.png",
      information = "1,000 km in total. Your shoes have been replaced at least twice." },
    { id = "lifetime-5000k", name = "Continental", tiers = { "earned" }, image = "lifetime-5000k.png",
      information = "5,000 km in total: an ocean's width on foot." },
    { id = "week-100k", name = "Hundred-Kilometre Week", tiers = { "earned" }, image = "week-100k.png",
      information = "100 km or more within one ISO week (Monday to Sunday, local dates). Earned again every such week." },
    { id = "month-200k", name = "Big Month", tiers = { "earned" }, image = "month-200k.png",
      information = "200 km or more within one calendar month (local dates). Earned again every such month." },
    { id = "streak-7", name = "Week Without Rest", tiers = { "earned" }, image = "streak-7.png",
      information = "A run on 7 consecutive local days. One missed day starts the count again. Earned again by every new streak." },
    { id = "streak-30", name = "Month Without Rest", tiers = { "earned" }, image = "streak-30.png",
      information = "A run on 30 consecutive local days. Earned again by every new streak." },
    { id = "everest", name = "Everest", tiers = { "earned" }, image = "everest.png",
      information = "8,848 m of climb in total: the height of Everest, one hill at a time." },
    { id = "runs-10", name = "Ten Runs", tiers = { "earned" }, image = "runs-10.png", information = "10 runs recorded." },
    { id = "runs-50", name = "Fifty Runs", tiers = { "earned" }, image = "runs-50.png", information = "50 runs recorded." },
    { id = "runs-100", name = "Hundred Runs", tiers = { "earned" }, image = "runs-100.png", information = "100 runs recorded." },
  },
}
