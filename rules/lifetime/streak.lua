-- Streaks of consecutive running days, by LOCAL date (run.local_date). Several runs on one day
-- count as one day. A day without a run ends the streak; the next run starts a new one at 1.
-- Repeatable: every streak that reaches 7 (30) days earns the badge once, on the run of its 7th
-- (30th) day, with the streak's first and last dates in the detail.

local LENGTHS = {
  { badge = "streak-7", days = 7 },
  { badge = "streak-30", days = 30 },
}

return {
  id = "streak",
  title = "Daily streaks",
  badge = "streak-7",
  repeatable = true,
  init = function(ctx) return { last = nil, first = nil, days = 0, longest = 0 } end,

  on_run = function(state, run, award, ctx)
    if run.sport ~= "running" then return end
    local date = run.local_date
    if date == nil then
      ctx.note(("run %s left out: no start date"):format(run.id))
      return
    end
    if state.last == nil then
      state.first, state.days = date, 1
    else
      local gap = badgectl.days_between(state.last, date)
      if gap == 0 then return end           -- another run on the same day
      if gap == 1 then
        state.days = state.days + 1
      else                                   -- a missed day (or more): start again
        state.first, state.days = date, 1
      end
    end
    state.last = date
    state.longest = math.max(state.longest, state.days)
    for _, length in ipairs(LENGTHS) do
      if state.days == length.days then
        award { badge = length.badge, run = run, detail = ("%d days: %s to %s"):format(length.days, state.first, date),
                evidence = { days = state.days, first = state.first, last = date } }
      end
    end
  end,

  status = function(state, ctx)
    local badges = {}
    for _, length in ipairs(LENGTHS) do
      local entry = { badge = length.badge,
                      progress = { current = math.min(state.days, length.days), target = length.days, unit = "days" } }
      if state.last == nil then
        entry.hint = ("run on %d consecutive days"):format(length.days)
      elseif state.days >= length.days then
        entry.hint = ("streak of %d days since %s; keep it going"):format(state.days, state.first)
      else
        local more = length.days - state.days
        entry.hint = ("%d more %s for a %d-day streak (current streak %d, last run %s)"):format(
          more, more == 1 and "day" or "days", length.days, state.days, state.last)
      end
      badges[#badges + 1] = entry
    end
    return { badges = badges }
  end,
}
