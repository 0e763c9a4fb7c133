-- By the fountain: the first run that passes within 40 m of it (the place measure).
return {
  id = "landmark",
  title = "By the fountain",

  init = function(ctx) return {} end,

  on_run = function(state, run, award, ctx)
    if state.done then return end
    local fountain = run.measures.fountain
    if fountain == nil or not fountain.passed then return end
    state.done = true
    award { badge = "fountain", run = run,
            detail = fountain.first_elapsed_s and ("passed at %s"):format(badgectl.format_duration(fountain.first_elapsed_s)) or "passed",
            evidence = { visits = fountain.visits, first_elapsed_s = fountain.first_elapsed_s,
                         last_elapsed_s = fountain.last_elapsed_s, closest_m = fountain.closest_m } }
  end,
}
