// SPDX-License-Identifier: GPL-2.0-only
/*
 * orca_soft: module entry, instances and their lifetime.
 *
 * "rdma link add NAME type orca netdev DEV" creates an instance: a
 * platform device that stands for the function and performs its DMA, the
 * register block, the interrupt vectors, the control workqueue, the
 * data-path engine thread, and the auxiliary
 * device "orca_soft.hca.<id>" that orca.ko binds to.  The instance lives
 * until the module is unloaded, its netdev is unregistered, or the driver
 * asks for its removal (CTRL.DETACH, after "rdma link delete orca0").
 */

#include <linux/bitfield.h>
#include <linux/if_arp.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/rdma_netlink.h>

#include "orca_soft.h"
#include "orca_soft_net.h"

/* Serialises instance creation and destruction (may sleep, may take RTNL). */
static DEFINE_MUTEX(orca_soft_mutex);
/* Protects orca_soft_devices and netdev_gone; taken in netdev notifiers. */
static DEFINE_SPINLOCK(orca_soft_list_lock);
static LIST_HEAD(orca_soft_devices);
static DEFINE_IDA(orca_soft_ida);

static void orca_soft_reap(struct work_struct *work);
static DECLARE_WORK(orca_soft_reap_work, orca_soft_reap);

/*
 * Paged rings (interface 1.7, the RING_PBL capability).  Read when an
 * instance is created: one created with it off is a device without
 * paged rings, on which the driver's contiguous rings can be tested.
 */
static bool ring_pbl = true;
module_param(ring_pbl, bool, 0644);
MODULE_PARM_DESC(ring_pbl,
		 "Paged rings (RING_PBL) on instances created from now on (default on)");

/*
 * Diagnosis: writing anything to dump_state logs the engine state of
 * every instance (orca_soft_engine_dump()).  Tests write it when a queue
 * stops making progress, so that the log says where its work is.
 */
static int orca_soft_dump_state(const char *val, const struct kernel_param *kp)
{
	struct orca_soft_dev *sdev;

	mutex_lock(&orca_soft_mutex);
	/* Instances leave the list only under orca_soft_mutex. */
	list_for_each_entry(sdev, &orca_soft_devices, list)
		orca_soft_engine_dump(sdev);
	mutex_unlock(&orca_soft_mutex);
	return 0;
}

static const struct kernel_param_ops orca_soft_dump_ops = {
	.set = orca_soft_dump_state,
};

module_param_cb(dump_state, &orca_soft_dump_ops, NULL, 0200);
MODULE_PARM_DESC(dump_state,
		 "Write to log each instance's engine and QP state (diagnosis)");

static const struct orca_bus_ops orca_soft_bus_ops = {
	.notify = orca_soft_notify,
};

/* ------------------------------------------------------------ interrupts */

static void orca_soft_vector_fire(struct irq_work *work)
{
	struct orca_soft_vector *vec = container_of(work,
						    struct orca_soft_vector,
						    work);

	generic_handle_irq_safe(vec->irq);
}

static int orca_soft_vectors_init(struct orca_soft_dev *sdev)
{
	int base, i;

	/* No owner module: the driver's request_irq must not pin us. */
	base = __irq_alloc_descs(-1, 0, ORCA_SOFT_NUM_VECTORS, NUMA_NO_NODE,
				 NULL, NULL);
	if (base < 0)
		return base;

	sdev->irq_base = base;
	sdev->bdev.num_vectors = ORCA_SOFT_NUM_VECTORS;
	for (i = 0; i < ORCA_SOFT_NUM_VECTORS; i++) {
		struct orca_soft_vector *vec = &sdev->vec[i];

		vec->sdev = sdev;
		vec->irq = base + i;
		init_irq_work(&vec->work, orca_soft_vector_fire);
		/*
		 * Edge flow, as an MSI-X vector: a raise while the handler
		 * runs on another CPU is latched (IRQS_PENDING) and the
		 * handler runs again.  The simple flow drops it, and an EQ
		 * re-armed by that handler would never signal again.
		 */
		irq_set_chip_and_handler_name(vec->irq, &dummy_irq_chip,
					      handle_edge_irq, "orca_soft");
		sdev->bdev.irqs[i] = vec->irq;
	}
	return 0;
}

static void orca_soft_vectors_fini(struct orca_soft_dev *sdev)
{
	int i;

	for (i = 0; i < ORCA_SOFT_NUM_VECTORS; i++)
		irq_work_sync(&sdev->vec[i].work);
	irq_free_descs(sdev->irq_base, ORCA_SOFT_NUM_VECTORS);
}

/* ------------------------------------------------------------- instances */

static void orca_soft_adev_release(struct device *dev)
{
	struct auxiliary_device *adev = to_auxiliary_dev(dev);
	struct orca_soft_dev *sdev = bdev_to_sdev(to_orca_bus_device(adev));

	free_percpu(sdev->dp_counts);
	kfree(sdev);
}

static struct orca_soft_dev *orca_soft_find_locked(struct net_device *ndev)
{
	struct orca_soft_dev *sdev;

	lockdep_assert_held(&orca_soft_list_lock);
	list_for_each_entry(sdev, &orca_soft_devices, list)
		if (sdev->netdev == ndev)
			return sdev;
	return NULL;
}

/*
 * Tear an instance down.  It is already off the list.  The driver unbinds
 * first (auxiliary_device_delete), so nothing uses the registers, vectors
 * or engine afterwards.
 */
static void orca_soft_destroy(struct orca_soft_dev *sdev)
{
	struct platform_device *pdev = sdev->pdev;

	auxiliary_device_delete(&sdev->bdev.adev);
	orca_soft_net_detach(sdev);
	orca_soft_engine_stop(sdev);
	/* What the engine had not taken when it stopped. */
	orca_soft_net_purge(sdev);
	orca_soft_vectors_fini(sdev);
	destroy_workqueue(sdev->wq);
	orca_soft_disable(sdev);
	netdev_put(sdev->netdev, &sdev->netdev_tracker);
	orca_soft_dm_fini(sdev);
	kfree(sdev->regs);
	ida_free(&orca_soft_ida, sdev->id);
	auxiliary_device_uninit(&sdev->bdev.adev);
	platform_device_unregister(pdev);
}

static struct orca_soft_dev *orca_soft_create(struct net_device *ndev,
					      const char *ibdev_name)
{
	struct platform_device_info pinfo = {
		.name = "orca_soft",
		.dma_mask = DMA_BIT_MASK(64),
	};
	struct orca_soft_dev *sdev;
	struct auxiliary_device *adev;
	int ret;

	sdev = kzalloc(sizeof(*sdev), GFP_KERNEL);
	if (!sdev)
		return ERR_PTR(-ENOMEM);
	sdev->dp_counts = alloc_percpu(struct orca_soft_dp_counts);
	if (!sdev->dp_counts) {
		ret = -ENOMEM;
		goto err_free_sdev;
	}

	ret = ida_alloc(&orca_soft_ida, GFP_KERNEL);
	if (ret < 0)
		goto err_free_counts;
	sdev->id = ret;

	pinfo.id = sdev->id;
	sdev->pdev = platform_device_register_full(&pinfo);
	if (IS_ERR(sdev->pdev)) {
		ret = PTR_ERR(sdev->pdev);
		goto err_free_id;
	}

	sdev->regs = kzalloc(ORCA_REG_BLOCK_SIZE, GFP_KERNEL);
	if (!sdev->regs) {
		ret = -ENOMEM;
		goto err_unregister_pdev;
	}
	ret = orca_soft_dm_init(sdev);
	if (ret)
		goto err_free_regs;
	/* The register block is the function's BAR: memory to the device. */
	sdev->bdev.regs = (void __iomem __force *)sdev->regs;
	sdev->bdev.ops = &orca_soft_bus_ops;
	sdev->netdev = ndev;
	sdev->bdev.netdev = ndev;
	strscpy(sdev->bdev.ibdev_name, ibdev_name,
		sizeof(sdev->bdev.ibdev_name));
	sdev->ring_pbl = READ_ONCE(ring_pbl);
	spin_lock_init(&sdev->lock);
	orca_soft_engine_init(sdev);
	orca_soft_admin_init(sdev);
	orca_soft_regs_init(sdev);
	INIT_WORK(&sdev->engine_work, orca_soft_engine_work);

	/* Reclaim may wait for an admin command: see orca_soft.h. */
	sdev->wq = alloc_ordered_workqueue("orca_soft%u", WQ_MEM_RECLAIM,
					   sdev->id);
	if (!sdev->wq) {
		ret = -ENOMEM;
		goto err_free_regs;
	}

	ret = orca_soft_vectors_init(sdev);
	if (ret)
		goto err_destroy_wq;

	ret = orca_soft_engine_start(sdev);
	if (ret)
		goto err_vectors_fini;

	netdev_hold(ndev, &sdev->netdev_tracker, GFP_KERNEL);

	ret = orca_soft_net_attach(sdev);
	if (ret)
		goto err_put_netdev;

	adev = &sdev->bdev.adev;
	adev->name = ORCA_BUS_DEV_NAME;
	adev->id = sdev->id;
	adev->dev.parent = &sdev->pdev->dev;
	adev->dev.release = orca_soft_adev_release;
	ret = auxiliary_device_init(adev);
	if (ret)
		goto err_net_detach;
	/* From here on, adev's release frees sdev. */
	ret = auxiliary_device_add(adev);
	if (ret)
		goto err_uninit;
	return sdev;

err_uninit:
	orca_soft_net_detach(sdev);
	orca_soft_engine_stop(sdev);
	orca_soft_net_purge(sdev);
	orca_soft_vectors_fini(sdev);
	destroy_workqueue(sdev->wq);
	netdev_put(ndev, &sdev->netdev_tracker);
	orca_soft_dm_fini(sdev);
	kfree(sdev->regs);
	platform_device_unregister(sdev->pdev);
	ida_free(&orca_soft_ida, sdev->id);
	auxiliary_device_uninit(adev);
	return ERR_PTR(ret);

err_net_detach:
	orca_soft_net_detach(sdev);
err_put_netdev:
	netdev_put(ndev, &sdev->netdev_tracker);
	orca_soft_engine_stop(sdev);
	orca_soft_net_purge(sdev);
err_vectors_fini:
	orca_soft_vectors_fini(sdev);
err_destroy_wq:
	destroy_workqueue(sdev->wq);
err_free_regs:
	orca_soft_dm_fini(sdev);
	kfree(sdev->regs);
err_unregister_pdev:
	platform_device_unregister(sdev->pdev);
err_free_id:
	ida_free(&orca_soft_ida, sdev->id);
err_free_counts:
	free_percpu(sdev->dp_counts);
err_free_sdev:
	kfree(sdev);
	return ERR_PTR(ret);
}

static int orca_soft_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct orca_soft_dev *sdev;
	bool exists;
	int ret = 0;

	if (ndev->type != ARPHRD_ETHER) {
		pr_err("orca_soft: %s is not an Ethernet device\n",
		       netdev_name(ndev));
		return -EINVAL;
	}

	/*
	 * "rdma link delete" returns once the driver asked for the detach:
	 * let a removal already queued end before looking for an instance.
	 */
	flush_work(&orca_soft_reap_work);
	mutex_lock(&orca_soft_mutex);
	spin_lock(&orca_soft_list_lock);
	exists = orca_soft_find_locked(ndev);
	spin_unlock(&orca_soft_list_lock);
	if (exists) {
		pr_err("orca_soft: %s already has an Orca function\n",
		       netdev_name(ndev));
		ret = -EEXIST;
		goto out_unlock;
	}

	sdev = orca_soft_create(ndev, ibdev_name);
	if (IS_ERR(sdev)) {
		ret = PTR_ERR(sdev);
		goto out_unlock;
	}

	/* The link is only useful with a driver bound to the function. */
	if (!sdev->bdev.adev.dev.driver) {
		pr_err("orca_soft: no driver bound to %s (is orca.ko loaded?)\n",
		       dev_name(&sdev->bdev.adev.dev));
		orca_soft_destroy(sdev);
		ret = -ENODEV;
		goto out_unlock;
	}

	spin_lock(&orca_soft_list_lock);
	list_add_tail(&sdev->list, &orca_soft_devices);
	/*
	 * NETDEV_UNREGISTER may have been delivered while the instance was
	 * not on the list yet: reg_state leaves NETREG_REGISTERED before
	 * the notifier runs, and the notifier takes this lock.  Without a
	 * reap here the netdev reference would never be dropped.
	 */
	if (READ_ONCE(ndev->reg_state) != NETREG_REGISTERED) {
		sdev->netdev_gone = true;
		schedule_work(&orca_soft_reap_work);
	}
	/* Likewise a detach requested as soon as the device registered. */
	if (sdev->detach)
		schedule_work(&orca_soft_reap_work);
	spin_unlock(&orca_soft_list_lock);
	dev_info(&sdev->pdev->dev, "function %s attached to %s\n",
		 dev_name(&sdev->bdev.adev.dev), netdev_name(ndev));

out_unlock:
	mutex_unlock(&orca_soft_mutex);
	return ret;
}

static struct rdma_link_ops orca_soft_link_ops = {
	.type = "orca",
	.newlink = orca_soft_newlink,
};

/*
 * The driver asked for the function's removal (CTRL.DETACH, written after
 * "rdma link delete").  notify() must not sleep, and the driver's remove
 * runs from the destruction: the reap work does it.
 */
void orca_soft_detach_request(struct orca_soft_dev *sdev)
{
	spin_lock(&orca_soft_list_lock);
	sdev->detach = true;
	schedule_work(&orca_soft_reap_work);
	spin_unlock(&orca_soft_list_lock);
}

/*
 * Destroy instances whose netdev is going away (cannot be done under
 * RTNL) or whose driver asked for a detach.
 */
static void orca_soft_reap(struct work_struct *work)
{
	struct orca_soft_dev *sdev, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&orca_soft_mutex);
	spin_lock(&orca_soft_list_lock);
	list_for_each_entry_safe(sdev, tmp, &orca_soft_devices, list)
		if (sdev->netdev_gone || sdev->detach)
			list_move_tail(&sdev->list, &gone);
	spin_unlock(&orca_soft_list_lock);

	list_for_each_entry_safe(sdev, tmp, &gone, list)
		orca_soft_destroy(sdev);
	mutex_unlock(&orca_soft_mutex);
}

static int orca_soft_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct orca_soft_dev *sdev, *gone = NULL;

	spin_lock(&orca_soft_list_lock);
	sdev = orca_soft_find_locked(ndev);
	if (!sdev)
		goto out;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		/* The port follows the link: tell the driver its state. */
		orca_soft_post_event(sdev, ORCA_EQE_PORT_CHANGE,
				     FIELD_PREP(ORCA_EQE_PORT_NUM, 1) |
				     FIELD_PREP(ORCA_EQE_PORT_STATE,
						orca_soft_port_state(ndev)));
		break;
	case NETDEV_UNREGISTER:
		sdev->netdev_gone = true;
		schedule_work(&orca_soft_reap_work);
		gone = sdev;
		break;
	default:
		break;
	}
out:
	spin_unlock(&orca_soft_list_lock);
	/*
	 * The rx_handler must be off the netdev before it finishes
	 * unregistering, and taking it off waits for an RCU grace period:
	 * not under the spinlock.  The reap cannot free @gone meanwhile:
	 * orca_soft_destroy() needs RTNL, which is held here, in
	 * orca_soft_net_detach() before it frees anything.
	 */
	if (gone)
		orca_soft_net_detach_rtnl(gone);
	return NOTIFY_DONE;
}

static struct notifier_block orca_soft_netdev_nb = {
	.notifier_call = orca_soft_netdev_event,
};

static int __init orca_soft_init(void)
{
	int ret;

	ret = register_netdevice_notifier(&orca_soft_netdev_nb);
	if (ret)
		return ret;
	rdma_link_register(&orca_soft_link_ops);
	return 0;
}

static void __exit orca_soft_exit(void)
{
	struct orca_soft_dev *sdev, *tmp;
	LIST_HEAD(all);

	rdma_link_unregister(&orca_soft_link_ops);
	unregister_netdevice_notifier(&orca_soft_netdev_nb);
	cancel_work_sync(&orca_soft_reap_work);

	mutex_lock(&orca_soft_mutex);
	spin_lock(&orca_soft_list_lock);
	list_splice_init(&orca_soft_devices, &all);
	spin_unlock(&orca_soft_list_lock);
	list_for_each_entry_safe(sdev, tmp, &all, list)
		orca_soft_destroy(sdev);
	mutex_unlock(&orca_soft_mutex);
	/* A detach requested meanwhile queued the reap again: let it end. */
	cancel_work_sync(&orca_soft_reap_work);
	ida_destroy(&orca_soft_ida);
}

module_init(orca_soft_init);
module_exit(orca_soft_exit);

MODULE_DESCRIPTION("Orca RDMA HCA implemented in software, over RoCEv2");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("orca");
/* Its HCAs are driven by orca.ko: load it too, with or without udev. */
MODULE_SOFTDEP("post: orca");
