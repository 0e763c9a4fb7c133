-- The Eddington number: the largest n such that on n different days you ran at least n km (a day's
-- distance is the sum of its runs, by local date). A family of badges at 10, 25, 50 and 100. It only
-- grows: the run that lifts it to a badge's number earns that badge, with the day count in the detail.
--
-- Kept per state: each day's total, and how many days reached each whole number of kilometres
-- (`days_at[k]`: days with at least k km, for k up to CAP_KM), so each run costs O(its day's kilometres).

local FAMILY = {   -- an array: badges in order
  { badge = "eddington-10", n = 10 },
  { badge = "eddington-25", n = 25 },
  { badge = "eddington-50", n = 50 },
  { badge = "eddington-100", n = 100 },
}
local CAP_KM = 300   -- a day of more than 300 km counts as 300: no Eddington number gets near it

local function whole_km(m) return math.min(CAP_KM, math.floor(m / 1000)) end

return {
  id = "eddington",
  title = "Eddington number",
  badge = "eddington-10",

  init = function(ctx)
    local days_at = {}
    for k = 1, CAP_KM do days_at[k] = 0 end
    return { day_m = {}, days_at = days_at, number = 0, last_date = nil }
  end,

  on_run = function(state, run, award, ctx)
    if run.sport ~= "running" then return end
    local date = run.local_date
    if date == nil then
      ctx.note(("run %s left out: no start date"):format(run.id))
      return
    end
    local before = state.day_m[date] or 0.0
    local after = before + run.distance_m
    state.day_m[date] = after
    state.last_date = date
    for k = whole_km(before) + 1, whole_km(after) do state.days_at[k] = state.days_at[k] + 1 end
    local grown = state.number
    while grown < CAP_KM and state.days_at[grown + 1] >= grown + 1 do grown = grown + 1 end
    if grown == state.number then return end
    local was = state.number
    state.number = grown
    for _, member in ipairs(FAMILY) do
      if was < member.n and grown >= member.n then
        award { badge = member.badge, run = run,
                detail = ("Eddington number %d: %d days of at least %d km"):format(grown, state.days_at[grown], grown),
                progress = { current = member.n, target = member.n, unit = "days" },
                evidence = { number = grown, days = state.days_at[grown], date = date } }
      end
    end
  end,

  status = function(state, ctx)
    local badges = {}
    for _, member in ipairs(FAMILY) do
      if state.number < member.n then
        local have = state.days_at[member.n]
        badges[#badges + 1] = { badge = member.badge,
          progress = { current = have, target = member.n, unit = "days" },
          hint = ("Eddington number %d; %d of %d days of at least %d km"):format(state.number, have, member.n, member.n) }
      end
    end
    if #badges == 0 then return nil end
    return { badges = badges }
  end,
}
