-- Eddington numbers kept apart by a group key: one per calendar year, one per sport. Within a group the
-- number is the largest n with n days of at least n km (a day's runs of the group added up, by local
-- date). A repeatable family of badges: the run that lifts a group's number to a member's n earns that
-- badge for the group, with the group in the detail.
--
--   return require("lib.eddington_groups") {
--     id = "eddington-years", title = "...", family = { { badge = "eddington-year-10", n = 10 }, ... },
--     group = function(run, date) return date:sub(1, 4) end,   -- nil: the run is left out
--     word = "year",                                            -- for hints: "no year yet"
--   }
--
-- State per group: each day's total and how many days reached each whole kilometre (`days_at[k]`,
-- missing for 0), so a run costs O(its day's kilometres), as in eddington.lua.

local CAP_KM = 300   -- a day of more than 300 km counts as 300

local function whole_km(m) return math.min(CAP_KM, math.floor(m / 1000)) end

return function(spec)
  local family = spec.family
  return {
    id = spec.id,
    title = spec.title,
    badge = family[1].badge,
    repeatable = true,   -- once per group (year, sport) and badge

    init = function(ctx) return { groups = {}, last = nil } end,

    on_run = function(state, run, award, ctx)
      local date = run.local_date
      if date == nil then
        ctx.note(("run %s left out: no start date"):format(run.id))
        return
      end
      local key = spec.group(run, date)
      if key == nil then return end
      local g = state.groups[key]
      if g == nil then
        g = { day_m = {}, days_at = {}, number = 0 }
        state.groups[key] = g
      end
      state.last = key
      local before = g.day_m[date] or 0.0
      local after = before + run.distance_m
      g.day_m[date] = after
      for k = whole_km(before) + 1, whole_km(after) do g.days_at[k] = (g.days_at[k] or 0) + 1 end
      local grown = g.number
      while grown < CAP_KM and (g.days_at[grown + 1] or 0) >= grown + 1 do grown = grown + 1 end
      if grown == g.number then return end
      local was = g.number
      g.number = grown
      for _, member in ipairs(family) do
        if was < member.n and grown >= member.n then
          award { badge = member.badge, run = run,
                  detail = ("%s: Eddington number %d, %d days of at least %d km"):format(key, grown, g.days_at[grown], grown),
                  progress = { current = member.n, target = member.n, unit = "days" },
                  evidence = { [spec.word] = key, number = grown, days = g.days_at[grown], date = date } }
        end
      end
    end,

    -- The group of the latest run: its number and the days it has towards each badge it lacks.
    status = function(state, ctx)
      local g = state.last and state.groups[state.last]
      local badges = {}
      for _, member in ipairs(family) do
        local have = g and (g.days_at[member.n] or 0) or 0
        if g == nil or g.number < member.n then
          local hint
          if g == nil then
            hint = ("no %s with a run yet"):format(spec.word)
          else
            hint = ("%s: Eddington number %d; %d of %d days of at least %d km"):format(state.last, g.number, have, member.n, member.n)
          end
          badges[#badges + 1] = { badge = member.badge, progress = { current = have, target = member.n, unit = "days" }, hint = hint }
        end
      end
      if #badges == 0 then return nil end
      return { badges = badges }
    end,
  }
end
