import numpy as np, gymnasium as gym, fortythieves_env
for v in fortythieves_env.VARIANTS:
    res=[]
    for seed in range(6):
        env = gym.make(fortythieves_env.env_id(v), max_episode_steps=3000)
        rng = np.random.default_rng(seed)
        o, info = env.reset(seed=seed)
        for t in range(3000):
            a = rng.choice(np.flatnonzero(info["action_mask"]))
            o, r, term, trunc, info = env.step(a)
            if term or trunc: break
        res.append((t+1, "T" if term else "t", info["foundation_cards"]))
    print(v, res)
