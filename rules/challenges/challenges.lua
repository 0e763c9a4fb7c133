-- The personal challenges of lib/list.lua: the run that takes the runner's total inside a challenge's
-- window (local dates, both ends included) to its target or past it (>=) earns the challenge's badge.
-- Runs outside the window never count; only runs with sport "running" do. status() says, for each
-- challenge not yet met, how far the runner is, and `next` the distance challenge whose window holds
-- the latest run with the least left.
local challenge = require("lib.challenge")
-- Walked with a numeric for: ipairs over a module's table leaves the shared Lua state marked as
-- changed, so the worker could not reuse it between athletes (ReusedEvaluatorTests).
local PERSONAL = challenge.personal

return {
  id = "challenges",
  title = "Dated challenges",
  badge = challenge.personal[1].id,

  init = function(ctx)
    local totals = {}
    for i = 1, #PERSONAL do totals[PERSONAL[i].id] = 0 end
    return { totals = totals, last_date = nil }
  end,

  on_run = function(state, run, award, ctx)
    if run.sport ~= "running" then return end
    local date = run.local_date
    if date == nil then
      ctx.note(("run %s left out of the challenges: no start date"):format(run.id))
      return
    end
    state.last_date = date
    for i = 1, #PERSONAL do
      local c = PERSONAL[i]
      if challenge.within(c, date) then
        local before = state.totals[c.id] or 0
        local after = before + challenge.amount(c.measure, run)
        state.totals[c.id] = after
        if before < c.target and after >= c.target then
          award { badge = c.id, run = run,
                  detail = ("%s of %s from %s to %s"):format(challenge.shown(c.measure, after), challenge.shown(c.measure, c.target), c.from, c.to),
                  progress = challenge.progress(c.measure, after, c.target),
                  evidence = { challenge = c.id, total = after, target = c.target, from = c.from, to = c.to } }
        end
      end
    end
  end,

  status = function(state, ctx)
    local badges, next = {}, nil
    for i = 1, #PERSONAL do
      local c = PERSONAL[i]
      local total = state.totals[c.id] or 0
      if total < c.target then
        local left = challenge.shown(c.measure, c.target - total)
        local hint
        if state.last_date == nil or state.last_date < c.from then
          hint = ("starts %s: %s by %s"):format(c.from, challenge.shown(c.measure, c.target), c.to)
        elseif state.last_date > c.to then
          hint = ("ended %s at %s of %s"):format(c.to, challenge.shown(c.measure, total), challenge.shown(c.measure, c.target))
        else
          hint = ("%s of %s by %s; %s to go"):format(challenge.shown(c.measure, total), challenge.shown(c.measure, c.target), c.to, left)
          if c.measure == "distance" and (next == nil or c.target - total < next.remaining_m) then
            next = { badge = c.id, remaining_m = c.target - total }
          end
        end
        badges[#badges + 1] = { badge = c.id, progress = challenge.progress(c.measure, total, c.target), hint = hint }
      end
    end
    if #badges == 0 then return nil end
    return { badges = badges, next = next }
  end,
}
