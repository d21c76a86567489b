print("courier: not yet")
